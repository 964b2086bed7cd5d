import Foundation
import Testing

@testable import Outbox

/// The check run from the issue, end to end against real files.
@Suite("Check run")
struct CheckRunTests {
    @Test func oneIDOfferedTwiceOneSendInterruptedThenResponses200_422_503_200() async throws {
        try await withTemporaryFolder { root in
            let device = root.appendingPathComponent("device")
            let afterKill = root.appendingPathComponent("after-kill")
            do {
                let outbox = try Outbox(folder: device)
                for id in ["plate-1", "plate-2", "plate-2", "plate-3", "plate-4"] {
                    try await outbox.enqueue(makeCapture(id: id))
                }
                #expect(try await outbox.list().entries.map(\.id) == ["plate-1", "plate-2", "plate-3", "plate-4"])

                // The process dies in the middle of sending plate-1: what is on disk at that
                // instant (the database, its write-ahead log and the media; not the shared-memory
                // index or the lock, which die with the process) is what the next launch finds.
                let killer = ScriptedTransport(duringSend: { _ in
                    try FileManager.default.copyItem(at: device, to: afterKill)
                    for leftover in ["outbox.sqlite-shm", "outbox.lock"] {
                        try? FileManager.default.removeItem(at: afterKill.appendingPathComponent(leftover))
                    }
                })
                _ = try await outbox.drain(using: killer)
            }
            let snapshot = try withRawDatabase(in: afterKill) { database in
                try database.query("SELECT state FROM outbox_entries ORDER BY sequence") { $0.text(at: 0) }
            }
            #expect(snapshot == ["SYNCING", "QUEUED", "QUEUED", "QUEUED"])

            do {
                let outbox = try Outbox(folder: afterKill)
                #expect(outbox.recoveredAtOpen == 1)
                #expect(try await outbox.list().entries.map(\.state) == [.queued, .queued, .queued, .queued])
                let transport = ScriptedTransport([
                    .http(status: 200), .http(status: 422), .http(status: 503), .http(status: 200),
                ])
                let report = try await outbox.drain(using: transport)
                #expect(report.synced.count == 1)
                #expect(report.halt == .transientFailure(id: "plate-3", reason: "HTTP 503"))
                #expect(await transport.sentIDs == ["plate-1", "plate-2", "plate-3"])
            }
            let entries = try await Outbox(folder: afterKill).list().entries
            #expect(entries.map(\.state) == [.synced, .failedNeedsAttention, .queued, .queued])
            // The interrupted send counts as an attempt; plate-4 was never tried.
            #expect(entries.map(\.attempts) == [2, 1, 1, 0])
            #expect(entries.map(\.lastError) == [nil, "HTTP 422", "HTTP 503", nil])
        }
    }
}
