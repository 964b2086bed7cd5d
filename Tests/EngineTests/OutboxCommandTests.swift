import Foundation
import ImagePrep
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `outbox` command as a user runs it: its words, its exit statuses, and what it does to the
/// store and the engine.
@Suite("outbox on the command line")
struct OutboxCommandTests {
    @Test(arguments: [
        (
            ["--store", "s", "frobnicate"],
            "Error: Unknown command 'frobnicate'\nUsage: outbox --store <folder> <command> [options]\n"
                + "  See 'outbox --help' for more information.\n"
        ),
        (
            ["add", "a.jpg"],
            "Error: Missing expected option '--store <folder>'\n"
                + "Usage: outbox --store <folder> add <photo> ... [--kind <kind>] [--note <text>]\n"
                + "  See 'outbox add --help' for more information.\n"
        ),
        (
            ["--store", "s", "drain"],
            "Error: Missing expected option '--engine <url>'\n"
                + "Usage: outbox --store <folder> drain --engine <url> [--watch <seconds>] [--network <kind>]\n"
                + "  See 'outbox drain --help' for more information.\n"
        ),
        (
            ["--store", "s", "drain", "--engine", "http://127.0.0.1:9", "--watch", "soon"],
            "Error: The value 'soon' is invalid for '--watch <seconds>': it must be a number of seconds from 0.01 to 86400\n"
                + "Usage: outbox --store <folder> drain --engine <url> [--watch <seconds>] [--network <kind>]\n"
                + "  See 'outbox drain --help' for more information.\n"
        ),
        (
            ["--store", "s", "send-now", "--engine", "127.0.0.1:9", "plate-1"],
            "Error: The value '127.0.0.1:9' is invalid for '--engine <url>': it must be an http:// or https:// URL with a host\n"
                + "Usage: outbox --store <folder> send-now <id> --engine <url>\n"
                + "  See 'outbox send-now --help' for more information.\n"
        ),
        (
            ["--store", "s", "discard"],
            "Error: Missing expected argument '<id>'\nUsage: outbox --store <folder> discard <id>\n"
                + "  See 'outbox discard --help' for more information.\n"
        ),
    ])
    func usageErrorsSayWhatIsWrongAndExit2(arguments: [String], message: String) throws {
        let result = try OutboxProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.standardError == message)
        #expect(result.standardOutput.isEmpty)
    }

    @Test func helpListsTheCommandsAndEachCommandHasItsOwn() throws {
        let overview = try OutboxProcess.run(["--help"])
        #expect(overview.status == 0)
        #expect(overview.standardOutput.hasPrefix("OVERVIEW: Keep captures on this device until the engine has them"))
        for command in ["add", "op", "list", "drain", "send-now", "discard"] {
            #expect(overview.standardOutput.contains("\n  \(command) "))
            let help = try OutboxProcess.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.standardOutput.contains("outbox --store <folder> \(command)"))
        }
    }

    @Test func addPrintsOneIDPerPhotoAndAddingAgainQueuesNothingTwice() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photos = try Fixtures.distinctPhotos(count: 2, in: folder.appendingPathComponent("photos")).map(\.path)
            let png = Fixtures.root.appendingPathComponent("decode/not-a-jpeg.txt").path

            let first = try OutboxProcess.run(["--store", store, "add", "--kind", "plate", photos[0], png, photos[1]])
            #expect(first.status == 1)
            #expect(first.lines.count == 2)
            #expect(first.lines.allSatisfy { $0.hasPrefix("plate-") && $0.count == "plate-".count + 32 })
            #expect(
                first.standardError
                    == "outbox: error: '\(png)' is in no image format ImagePrep prepares: it looks like text.\n")

            let again = try OutboxProcess.run(["--store", store, "add", "--kind", "plate", photos[1]])
            #expect(again.status == 0)
            #expect(again.lines == [first.lines[1]])
            #expect(again.standardError == "outbox: '\(photos[1])' was already queued as '\(first.lines[1])'.\n")

            // Another note is another capture.
            let other = try OutboxProcess.run(["--store", store, "add", "--kind", "plate", "--note", "x", photos[1]])
            #expect(other.lines.count == 1 && other.lines != again.lines)

            let listing = try OutboxProcess.run(["--store", store, "list", "--json"])
            #expect(listing.status == 0)
            #expect(listing.lines.count == 4)
            #expect(
                listing.lines[0]
                    == "{\"id\":\"\(first.lines[0])\",\"state\":\"QUEUED\",\"attempts\":0,\"lastError\":null,"
                    + "\"nextAttemptAt\":null,\"waitsForSendNow\":false,\"entity\":null,\"type\":\"capture.create\","
                    + "\"blockedBy\":null,\"status\":\"pending\",\"waitsForNetwork\":null,\"history\":[]}")
            #expect(listing.lines[3] == "{\"unreadable\":0}")
        }
    }

    @Test func addQueuesAHEICAsAJPEGCapture() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let heic = Fixtures.root.appendingPathComponent("heic/iphone-like-grid-p3-rotated.heic").path
            let added = try OutboxProcess.run(["--store", store, "add", "--kind", "plate", heic])
            #expect(added.status == 0, "\(added.standardError)")
            #expect(added.lines.count == 1 && added.lines[0].hasPrefix("plate-"))
            let listing = try OutboxProcess.run(["--store", store, "list", "--json"])
            #expect(listing.lines.first?.hasPrefix("{\"id\":\"\(added.lines[0])\",\"state\":\"QUEUED\"") == true)
            // What the library queues for the same file is a JPEG: the upload copy, upright.
            let photo = try await PhotoPreparer().prepare(contentsOf: URL(fileURLWithPath: heic))
            #expect(photo.upload.data.prefix(2) == Data([0xFF, 0xD8]))
            #expect(photo.upload.size == PixelSize(width: 750, height: 1000))
        }
    }

    @Test func drainSendsRetiresAndExits0AndWithTheEngineDownExits1() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photos = try Fixtures.distinctPhotos(count: 3, in: folder.appendingPathComponent("photos")).map(\.path)
            let ids = try OutboxProcess.run(["--store", store, "add", "--note", "gate"] + photos).lines
            let port = try unusedPort()

            // A long backoff, so that the capture still backs off at the next drain however slow the machine.
            let down = try OutboxProcess.run([
                "--store", store, "drain", "--engine", "http://127.0.0.1:\(port)", "--retry-delay", "3600",
            ])
            #expect(down.status == 1)
            #expect(down.standardOutput.isEmpty)
            #expect(
                down.standardError
                    == "outbox: stopped at '\(ids[0])': network error: POST http://127.0.0.1:\(port)/v1/uploads/\(ids[0])/0:"
                    + " the connection was refused (is the engine running?).\n"
                    + "outbox: 3 captures left in the queue, 0 parked.\n")
            let afterDown = try OutboxProcess.run(["--store", store, "list", "--json"]).jsonLines
            #expect(afterDown.compactMap { $0["attempts"] as? Int } == [1, 0, 0])

            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"), port: port)
            let up = try OutboxProcess.run(["--store", store, "drain", "--engine", engine.url.absoluteString])
            #expect(up.status == 0)
            #expect(up.lines == ids)
            #expect(up.standardError == "outbox: 0 captures left in the queue, 0 parked.\n")
            #expect(try OutboxProcess.run(["--store", store, "list", "--json"]).lines == ["{\"unreadable\":0}"])
            let records = try await engine.state().records
            // The capture that met the outage backs off, so the drain sends it after the others.
            #expect(records.map(\.requestId) == Array(ids.dropFirst()) + [ids[0]])
            #expect(records.allSatisfy { $0.kind == "photo" && $0.note == "gate" })
        }
    }

    /// An engine written to version 1 of the protocol answers records without `received_at` and
    /// the uploads' `byte_count`: the capture stays queued, and drain, `list` and `list --json`
    /// say which keys the engine must add and since which version, not that a mirror answered.
    @Test func anEngineOfTheEarlierProtocolIsToldWhatToAdd() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photo = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos"))[0].path
            let id = try #require(try OutboxProcess.run(["--store", store, "add", photo]).lines.first)
            let data = folder.appendingPathComponent("engine")
            let earlier = try ReferenceEngine(dataFolder: data, protocolVersion: 1)
            let url = earlier.url.absoluteString
            let reason =
                "POST \(url)/v1/captures: the server answered 201 with a record that lacks 'received_at' (when the"
                + " engine received it, UTC, ISO 8601) and 'byte_count' on each of its media (the size of the upload"
                + " the engine holds), which an engine must give since version 2 of the engine protocol"
                + " (docs/engine-protocol.md, \"What only the engine adds\"): an engine written to version 1 must add"
                + " them"
            let drain = try OutboxProcess.run(["--store", store, "drain", "--engine", url])
            #expect(drain.status == 1)
            #expect(drain.standardError.contains(reason), "\(drain.standardError)")
            #expect(try OutboxProcess.run(["--store", store, "list"]).standardOutput.contains(reason))
            let listed = try OutboxProcess.run(["--store", store, "list", "--json"]).jsonLines.first
            #expect((listed?["lastError"] as? String)?.contains(reason) == true, "\(listed ?? [:])")
            earlier.stop()

            // The same engine brought to version 2 replays its record, which now confirms the capture.
            let current = try ReferenceEngine(dataFolder: data)
            let delivered = try OutboxProcess.run(["--store", store, "drain", "--engine", current.url.absoluteString])
            #expect(delivered.status == 0 && delivered.lines == [id])
            let state = try await current.state()
            #expect(state.records.filter { $0.requestId == id }.count == 1)
            #expect(state.requests(about: id).contains { $0.path == "/v1/captures" && $0.outcome == .status(200) })
        }
    }

    @Test func aParkedCaptureIsNamedOnStderrAndSendNowOrDiscardSettleIt() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photos = try Fixtures.distinctPhotos(count: 2, in: folder.appendingPathComponent("photos")).map(\.path)
            let ids = try OutboxProcess.run(["--store", store, "add"] + photos).lines
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let url = engine.url.absoluteString
            // The creation refused (the engine takes the contract's PUT instead), then the PUT.
            try await engine.inject([
                "mode": "status", "status": 400, "count": 2, "path_prefix": "/v1/uploads/\(ids[0])/",
            ])
            _ = try await engine.request(
                "PUT", "v1/uploads/\(ids[1])/0", body: Data("other bytes".utf8), headers: ["Content-Type": "image/jpeg"]
            )

            let drain = try OutboxProcess.run(["--store", store, "drain", "--engine", url])
            #expect(drain.status == 0, "parked captures wait for the user; nothing is left queued")
            #expect(drain.standardOutput.isEmpty)
            let errorLines = drain.standardError.split(separator: "\n").map(String.init)
            #expect(errorLines.count == 3)
            #expect(
                errorLines[0]
                    == "outbox: '\(ids[0])' needs attention: HTTP 400: PUT \(url)/v1/uploads/\(ids[0])/0:"
                    + " an injected failure (HTTP 400). Send it again with 'outbox send-now \(ids[0])'"
                    + " or remove it with 'outbox discard \(ids[0])'.")
            // The creation refused once, the transport sends every upload as the contract's PUT.
            #expect(
                errorLines[1].hasPrefix(
                    "outbox: '\(ids[1])' needs attention: HTTP 422: PUT \(url)/v1/uploads/\(ids[1])/0:"))
            #expect(errorLines[2] == "outbox: 0 captures left in the queue, 2 parked.")

            let sent = try OutboxProcess.run(["--store", store, "send-now", ids[0], "--engine", url])
            #expect(sent.status == 0)
            #expect(sent.lines == [ids[0]])
            let refused = try OutboxProcess.run(["--store", store, "send-now", ids[1], "--engine", url])
            #expect(refused.status == 1)
            #expect(
                refused.standardError.contains(
                    "outbox: error: The entry '\(ids[1])' did not reach the engine: HTTP 422: PATCH"
                        + " \(url)/v1/uploads/\(ids[1])/0/"))
            #expect(refused.standardError.contains(": Upload 0 of '\(ids[1])' already holds different bytes"))
            let discarded = try OutboxProcess.run(["--store", store, "discard", ids[1]])
            #expect(discarded.status == 0)
            #expect(discarded.standardError == "outbox: discarded '\(ids[1])'.\n")
            #expect(try OutboxProcess.run(["--store", store, "discard", ids[1]]).status == 1)
            #expect(try OutboxProcess.run(["--store", store, "list"]).standardOutput == "The outbox is empty.\n")
            #expect(try await engine.state().records.map(\.requestId) == [ids[0]])
        }
    }

    /// With --watch a failed pass reschedules itself: the engine comes up later and the capture
    /// arrives without anyone asking again; SIGTERM then ends the watch with status 0.
    @Test func watchRetriesOnItsOwnUntilTheEngineIsUpAndStopsOnSIGTERM() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photos = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos")).map(\.path)
            let ids = try OutboxProcess.run(["--store", store, "add"] + photos).lines
            let port = try unusedPort()
            let watch = try OutboxProcess([
                "--store", store, "drain", "--engine", "http://127.0.0.1:\(port)", "--watch", "60", "--retry-delay",
                "0.2", "--retry-limit", "100",
            ])
            #expect(
                try await waitUntil {
                    try OutboxProcess.run(["--store", store, "list", "--json"]).jsonLines.first?["attempts"] as? Int
                        ?? 0
                        >= 2
                }, "the watch retries on its own while the engine is down")
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"), port: port)
            // The backoff doubles from 0.2 s: on a loaded machine the watch may have failed eight
            // or nine times before the engine is up, and its next retry is then up to 51 s away.
            #expect(try await waitUntil(seconds: 180) { try await engine.state().records.count == 1 })
            #expect(
                try await waitUntil { try OutboxProcess.run(["--store", store, "list", "--json"]).lines.count == 1 })
            watch.send(SIGTERM)
            let result = watch.wait()
            #expect(result.status == 0)
            #expect(result.lines == ids)
            #expect(result.standardError.hasSuffix("outbox: 0 captures left in the queue, 0 parked.\n"))
        }
    }

    /// On a terminal (a pseudo-terminal made by script(1)) drain shows how far the upload has come.
    /// ... with its place in the pass: "Sending 2 of 3, plate-…: 100% (…)".
    @Test func drainShowsUploadProgressOnATerminal() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photos = try Fixtures.distinctPhotos(count: 3, in: folder.appendingPathComponent("photos")).map(\.path)
            let ids = try OutboxProcess.run(["--store", store, "add"] + photos).lines
            try #require(ids.count == 3)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let command = [
                OutboxProcess.executable.path, "--store", store, "drain", "--engine", engine.url.absoluteString,
            ]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-q", "-e", "-c", command.joined(separator: " "), "/dev/null"]
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            for (number, id) in ids.enumerated() {
                #expect(text.contains("\r\u{1B}[KSending \(number + 1) of 3, \(id): 100% ("))
                #expect(text.contains("\(id)\r\n"))
            }
        }
    }
}
