import Foundation
import Testing

@testable import Outbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rules behind resumable uploads that hold against hostile answers: URLs in one normal
/// form, a byte budget per send, resources given back once the client is done with them, and the
/// history that says what the outbox cleared.
@Suite("Upload resources")
struct UploadResourceTests {
    // MARK: - One normal form

    @Test(arguments: [
        ("HTTP://Engine.Example.COM:80/api", "http://engine.example.com/api"),
        ("https://ENGINE.example.com:443", "https://engine.example.com"),
        ("HtTpS://engine.example.com:8443/v1/", "https://engine.example.com:8443/v1/"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
    ])
    func anEngineURLHasOneNormalForm(given: String, normal: String) throws {
        let url = try #require(URL(string: given))
        #expect(EngineURL.normalized(url)?.absoluteString == normal)
        #expect(HTTPTransport.Configuration(engineURL: url).normalizedEngineURL?.absoluteString == normal)
    }

    @Test(arguments: ["ftp://engine.example.com", "file:///tmp/engine", "http://", "mailto:a@b.c", "http://h:70000"])
    func onlyHTTPAndHTTPSWithAHostAreEngineURLs(given: String) throws {
        let url = try #require(URL(string: given))
        #expect(EngineURL.normalized(url) == nil)
    }

    /// A Location in any spelling of the engine's origin is the same resource, in the normal form;
    /// another origin (scheme, host or port) is not.
    @Test func aLocationIsComparedAndKeptInTheNormalForm() throws {
        let given = try #require(URL(string: "http://Engine.example.com/api"))
        let engine = try #require(EngineURL.normalized(given))
        let path = "/api/v1/uploads/note-1/0/abc"
        for spelling in ["HTTP://ENGINE.EXAMPLE.COM:80\(path)", "http://engine.example.com\(path)", path] {
            #expect(
                ResumableUpload.resource(at: spelling, of: "note-1", index: 0, engine: engine)?.absoluteString
                    == "http://engine.example.com\(path)", "\(spelling)")
        }
        for other in [
            "https://engine.example.com\(path)", "http://engine.example.com:8080\(path)",
            "ftp://engine.example.com\(path)",
        ] {
            #expect(ResumableUpload.resource(at: other, of: "note-1", index: 0, engine: engine) == nil, "\(other)")
        }
    }

    /// A transport given a URL that is not an engine's sends nothing and says why.
    @Test func aTransportToAnURLThatIsNoEnginesSaysSo() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let report = try await outbox.drainNow(
                using: HTTPTransport(engineURL: try #require(URL(string: "ftp://engine.example.com"))))
            #expect(report.synced.isEmpty)
            let lastError = try await outbox.entry(id: "note-1")?.lastError
            #expect(lastError?.contains("is not an http:// or https:// URL with a host") == true, "\(lastError ?? "")")
        }
    }

    // MARK: - The budget

    @Test func theFirstAppendCarriesTheRestAndLaterOnesWhatTheLinkCarried() {
        var budget = UploadBudget(fileSize: 46_000)
        #expect(budget.limit == 92_000)
        #expect(budget.appendLength(from: 0, carried: nil) == 46_000)
        budget.spend(46_000)
        // Cut after 4,200 bytes: the link carries that much; the budget spares as much beyond the rest.
        #expect(budget.appendLength(from: 4_200, carried: 4_200) == 4_200 - 4_200 / 16)
        // Cut after 41,000: the rest fits.
        #expect(budget.appendLength(from: 41_000, carried: 41_000) == 5_000)
        #expect(budget.allows(46_000) && !budget.allows(46_001))
        #expect(UploadBudget(fileSize: 0).appendLength(from: 0, carried: 10) == 0)
    }

    @Test func anOffsetThatMovesByAByteIsNoProgress() {
        #expect(!UploadBudget.isRealProgress(1, of: 46_000))
        #expect(!UploadBudget.isRealProgress(0, of: 46_000))
        #expect(!UploadBudget.isRealProgress(-5, of: 46_000))
        #expect(UploadBudget.isRealProgress(4_200, of: 46_000))
        #expect(UploadBudget.isRealProgress(64 * 1024, of: 50_000_000), "64 KiB of a large file")
        #expect(!UploadBudget.isRealProgress(64 * 1024 - 1, of: 50_000_000))
    }

    // MARK: - A resource that cannot be requested

    /// A request of a resource that fails for a reason of its URL's, not of the network (here a
    /// certificate that is not trusted, as a TLS name mismatch fails): the resource is dropped, and
    /// the upload starts afresh; when the new resource fails the same way, it goes as one PUT.
    /// It used to count as a network error, which kept the resource, and the capture, for ever.
    @Test func aResourceThatCannotBeRequestedIsDroppedAndTheUploadStartsAfresh() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            try await ResumableUploadTests.sendCutAndLoseTheOffset(outbox, to: engine)

            let sessionConfiguration = URLSessionConfiguration.ephemeral
            sessionConfiguration.protocolClasses =
                [UntrustedResourceProtocol.self] + (sessionConfiguration.protocolClasses ?? [])
            let transport = HTTPTransport(
                configuration: .init(engineURL: engine.url), credentials: nil,
                sessionConfiguration: sessionConfiguration, delegate: SessionDelegate())
            let next = try ResumableUploadTests.reopened(in: folder)
            #expect(try await next.drainNow(using: transport).synced == ["note-1"])
            let requests = try await ResumableUploadTests.requests("note-1", at: engine)
            #expect(requests.suffix(3) == ["POST 201", "PUT 201", "POST 201"], "\(requests)")
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
        }
    }

    /// Fails every request of an upload resource (`/v1/uploads/{id}/{index}/{token}`) as a
    /// certificate that is not trusted; the others go to the network as usual.
    final class UntrustedResourceProtocol: URLProtocol {
        override class func canInit(with request: URLRequest) -> Bool {
            guard let path = request.url?.path else { return false }
            let parts = path.split(separator: "/")
            return parts.count == 5 && parts[0] == "v1" && parts[1] == "uploads"
        }

        override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

        override func startLoading() {
            client?.urlProtocol(self, didFailWithError: URLError(.serverCertificateUntrusted))
        }

        override func stopLoading() {}
    }

    // MARK: - Resources given back

    /// A resource the client will not use again is given back (`DELETE`) once the engine answers:
    /// after an answer that is not believable (then one PUT), and after the user discards the
    /// entry whose upload was cut (at the end of the next pass that reaches the engine).
    @Test func aResourceNotUsedAgainIsGivenBack() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableAttackTests.outboxWithTwoEntries(in: folder)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let transport = HTTPTransport(engineURL: engine.url)
            try await ResumableUploadTests.sendCutAndLoseTheOffset(outbox, to: engine, using: transport)
            #expect(try await engine.state().resumableUploads.map(\.requestId) == ["note-1"])

            try await outbox.discard(id: "note-1")
            #expect(try await ResumableUploadTests.reopened(in: folder).drainNow(using: transport).synced == ["note-2"])
            let requests = try await ResumableUploadTests.requests("note-1", at: engine)
            #expect(requests.last == "DELETE 204", "\(requests)")
            #expect(try await engine.state().resumableUploads.filter { !$0.complete }.isEmpty)
            #expect(try Self.resourcesToGiveBack(in: folder) == 0)
        }
    }

    @Test func aResourceWhoseOffsetCannotBeTrueIsGivenBackAfterThePUT() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine.misbehaving(
                "offset-beyond", dataFolder: folder.appendingPathComponent("engine"))
            try await engine.inject(["mode": "cut_body", "after": 15000, "method": "PATCH"])
            #expect(try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url)).synced == ["note-1"])
            #expect(
                try await ResumableUploadTests.requests("note-1", at: engine) == [
                    "POST 201", "PATCH connection cut after 15000 bytes of the body", "HEAD 204", "PUT 201",
                    "DELETE 204", "POST 201",
                ])
            #expect(try await engine.state().resumableUploads.allSatisfy(\.complete))
        }
    }

    /// What the table of resources to give back holds is untrusted like any stored value: a row
    /// for another host, sealed for another record, or not resources at all, is deleted without a
    /// request; only the resource of its upload on this engine is given back.
    @Test func aPlantedResourceToGiveBackIsNeverFollowed() async throws {
        try await withTemporaryFolder { folder in
            let key = OutboxKey.generate()
            let cipher = StoreCipher(key: key)
            let outbox = try await ResumableUploadTests.outbox(in: folder, key: key)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let abandoned = try await engine.request(
                "POST", "v1/uploads/gone-1/0", body: Data(),
                headers: [
                    "Upload-Draft-Interop-Version": "6", "Upload-Complete": "?0", "Content-Type": "image/jpeg",
                ])
            #expect(abandoned.0 == 201)
            let location = try #require(try await engine.state().resumableUploads.first)
            let real = Data(#"{"0":"/v1/uploads/gone-1/0/\#(location.token)"}"#.utf8)
            let planted: [(String, SQLiteValue)] = [
                ("gone-1", .blob(cipher.seal(real, for: .uploadResources(id: "gone-1")))),
                ("gone-2", .blob(cipher.seal(real, for: .uploadResources(id: "gone-1")))),
                ("gone-3", .text(String(decoding: real, as: UTF8.self))),
                (
                    "gone-4",
                    .blob(
                        cipher.seal(
                            Data(#"{"0":"http://attacker.example/v1/uploads/gone-4/0/abc"}"#.utf8),
                            for: .uploadResources(id: "gone-4")))
                ),
                ("../x", .text("not json")),
            ]
            try withRawDatabase(in: folder.appendingPathComponent("outbox")) { database in
                for (id, value) in planted {
                    try database.run(
                        "INSERT INTO outbox_abandoned_uploads (id, resources) VALUES (?, ?)", .text(id), value)
                }
            }
            #expect(try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url)).synced == ["note-1"])
            let deletes = try await engine.state().requests.filter { $0.method == "DELETE" }
            #expect(deletes.map(\.path) == ["/v1/uploads/gone-1/0/\(location.token)"])
            #expect(try await engine.state().resumableUploads.filter { !$0.complete }.isEmpty)
            #expect(try Self.resourcesToGiveBack(in: folder) == 0)
        }
    }

    /// The rows of `outbox_abandoned_uploads` in the store of `ResumableUploadTests.outbox(in:)`.
    static func resourcesToGiveBack(in folder: URL) throws -> Int64? {
        try withRawDatabase(in: folder.appendingPathComponent("outbox")) {
            try $0.query("SELECT count(*) FROM outbox_abandoned_uploads") { $0.integer(at: 0) }.first ?? nil
        }
    }

    // MARK: - The history

    /// What the pass cleared is in the entry's history, for the app (`OutboxEntry.history`) and
    /// for `outbox list --json`; a planted history is shown as lines without control characters.
    @Test func theHistorySaysWhatWasClearedAndIsShownSafely() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            try withRawDatabase(in: store) {
                try $0.run(
                    """
                    UPDATE outbox_entries SET state = 'FAILED_NEEDS_ATTENTION', upload_resources = 'not json',
                        history = 'planted' || char(27) || '[31m line' || char(10) || 'second'
                    """)
            }
            let nowhere = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())"))
            _ = try await outbox.drainNow(using: HTTPTransport(engineURL: nowhere))
            let history = try #require(try await outbox.entry(id: "note-1")).history
            #expect(history.count == 3)
            #expect(history.prefix(2) == ["planted line", "second"])
            #expect(history.last?.hasSuffix("Z cleared its upload resources: not resources by upload") == true)
            let listed = try OutboxProcess.run(["--store", store.path, "list", "--json"]).jsonLines.first
            #expect(listed?["history"] as? [String] == history)
        }
    }

    /// A history too large is replaced by the line that says so.
    @Test func aHistoryTooLargeIsReplaced() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            try withRawDatabase(in: store) {
                try $0.run("UPDATE outbox_entries SET history = printf('%.*c', 100000, 'x')")
            }
            let nowhere = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())"))
            _ = try await outbox.drainNow(using: HTTPTransport(engineURL: nowhere))
            let history = try #require(try await outbox.entry(id: "note-1")).history
            #expect(history.count == 1)
            #expect(history.first?.hasSuffix("Z cleared its history: larger than 8 KiB") == true, "\(history)")
        }
    }
}
