import Foundation
import Testing

@testable import Outbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference engine (`engine/reference_engine.py`) as a subprocess on 127.0.0.1.
final class ReferenceEngine {
    /// The engine's base URL.
    let url: URL
    /// Where its database and uploads are.
    let dataFolder: URL
    private let process: Process

    /// Starts the engine and waits until it listens.
    ///
    /// - Parameters:
    ///   - dataFolder: Its database and uploads; a restarted engine on the same folder keeps them.
    ///   - port: 0 for one the kernel picks.
    ///   - protocolVersion: the version of docs/engine-protocol.md it answers records by.
    ///   - options: More of its options, such as `["--expire-resumable-after", "60"]`.
    convenience init(
        dataFolder: URL, port: Int = 0, protocolVersion: Int = EngineProtocol.version, options: [String] = []
    ) throws {
        releaseHeldPort(port)
        try self.init(
            script: Fixtures.engineFolder.appendingPathComponent("reference_engine.py"),
            arguments: [
                "--port", String(port), "--data", dataFolder.path, "--protocol-version", String(protocolVersion),
            ] + options, dataFolder: dataFolder)
    }

    /// Starts a server of `misbehaving_engine.py` in `mode` (`html`, `endless`, `keeps-first`, ...),
    /// with more of its options (`["--status", "415"]`).
    static func misbehaving(_ mode: String, dataFolder: URL, options: [String] = []) throws -> ReferenceEngine {
        try ReferenceEngine(
            script: Fixtures.misbehavingEngine,
            arguments: [
                mode, "--port", "0", "--reference-engine", Fixtures.engineFolder.path, "--data", dataFolder.path,
            ] + options, dataFolder: dataFolder)
    }

    /// Starts the reference engine behind a sign-in: a 401 for every request without
    /// `Authorization: Bearer token` (`misbehaving_engine.py requires-token`).
    static func requiringToken(_ token: String, dataFolder: URL) throws -> ReferenceEngine {
        try ReferenceEngine(
            script: Fixtures.misbehavingEngine,
            arguments: [
                "requires-token", "--token", token, "--port", "0", "--reference-engine", Fixtures.engineFolder.path,
                "--data", dataFolder.path,
            ], dataFolder: dataFolder)
    }

    /// Starts `cutting_proxy.py` in front of `engine`: every connection through it is cut once
    /// `cutAfter` bytes of the client's passed, and each connection's count is appended to
    /// `connections.jsonl` in `dataFolder`.
    static func cuttingProxy(to engine: ReferenceEngine, cutAfter: Int, dataFolder: URL) throws -> ReferenceEngine {
        try FileManager.default.createDirectory(at: dataFolder, withIntermediateDirectories: true)
        return try ReferenceEngine(
            script: Fixtures.root.appendingPathComponent("engines/cutting_proxy.py"),
            arguments: [
                "--upstream-port", String(engine.port), "--cut-after", String(cutAfter), "--log",
                dataFolder.appendingPathComponent("connections.jsonl").path,
            ], dataFolder: dataFolder)
    }

    private init(script: URL, arguments: [String], dataFolder: URL) throws {
        self.dataFolder = dataFolder
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The engine prints {"port": N, ...} once it listens: read up to that line.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        struct Started: Decodable { let url: String }
        guard let started = try? JSONDecoder().decode(Started.self, from: line), let url = URL(string: started.url)
        else {
            process.terminate()
            let reason = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw EngineTestError("the reference engine did not start: \(reason)")
        }
        self.url = url
    }

    /// The engine's port.
    var port: Int { url.port ?? 0 }

    deinit { stop() }

    /// Stops the engine (SIGTERM) and waits for it to exit.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Orders a fault, as `POST /_engine/faults` takes it.
    func inject(_ fault: [String: any Sendable]) async throws {
        let body = try JSONSerialization.data(withJSONObject: fault)
        let (status, _) = try await request("POST", "_engine/faults", body: body)
        try #require(status == 201, "the engine refused the fault \(fault)")
    }

    /// Everything the engine holds and every request it saw.
    func state() async throws -> EngineState {
        let (_, body) = try await request("GET", "_engine/state")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(EngineState.self, from: body)
    }

    /// Sends one request to the engine directly, as another client would.
    ///
    /// - Returns: The status and the body.
    func request(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws
        -> (Int, Data)
    {
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = method
        request.httpBody = body
        request.setValue("close", forHTTPHeaderField: "Connection")
        // Bounded, so that one lost request cannot outlast the poll that made it.
        request.timeoutInterval = 10
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

/// What `GET /_engine/state` answers.
struct EngineState: Decodable {
    struct Record: Decodable, Equatable {
        struct Place: Decodable, Equatable {
            let latitude: Double
            let longitude: Double
        }
        struct Media: Decodable, Equatable {
            let index: Int
            let sha256: String
            let width: Int
            let height: Int
            let byteCount: Int
        }
        let requestId: String
        let kind: String
        let note: String
        let capturedAt: String?
        let capturedAtSource: String
        let timeZone: String?
        let place: Place?
        let placeSource: String?
        let media: [Media]
    }

    struct Upload: Decodable {
        let requestId: String
        let index: Int
        let sha256: String
        let sha256OnDisk: String?
    }

    struct Request: Decodable {
        let method: String
        let path: String
        /// The capture it is about: from an upload's path, or a capture's Idempotency-Key.
        let requestId: String?
        /// The status as a number, or what happened instead ("connection dropped", "reply dropped after 201").
        let outcome: Outcome
        let replayed: Bool

        enum Outcome: Decodable, Equatable {
            case status(Int)
            case other(String)

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let status = try? container.decode(Int.self) {
                    self = .status(status)
                } else {
                    self = .other(try container.decode(String.self))
                }
            }
        }
    }

    /// An operation's record (the extension).
    struct Operation: Decodable, Equatable {
        struct Media: Decodable, Equatable {
            let index: Int
            let sha256: String
            let byteCount: Int
        }
        let requestId: String
        let entity: String?
        let type: String
        let version: Int
        let payload: JSONValue
        let media: [Media]
    }

    /// A resumable upload resource the engine holds.
    struct ResumableUpload: Decodable {
        let token: String
        let requestId: String
        let index: Int
        let offset: Int
        let complete: Bool
    }

    let records: [Record]
    let operations: [Operation]
    let uploads: [Upload]
    let requests: [Request]
    let resumableUploads: [ResumableUpload]
    /// How many requests a `hold` fault keeps waiting now.
    let held: Int

    /// The operation with this request id, if the engine holds it.
    func operation(_ id: String) -> Operation? { operations.first { $0.requestId == id } }

    /// The requests about one capture: its uploads and its creation.
    func requests(about id: String) -> [Request] { requests.filter { $0.requestId == id } }

    func record(_ id: String) -> Record? { records.first { $0.requestId == id } }
}

/// The sockets that keep `unusedPort()`'s ports taken, by port, until an engine is started on
/// one (`ReferenceEngine(dataFolder:port:)`) or the test process ends.
private let heldPorts = Locked<[Int: Int32]>([:])

/// Lets `port` go, so that an engine can listen on it.
func releaseHeldPort(_ port: Int) {
    if let descriptor = heldPorts.withLock({ $0.removeValue(forKey: port) }) { close(descriptor) }
}

/// A port on 127.0.0.1 that nothing listens on, and nothing will: the socket stays bound (never
/// listening, so a connection is refused) for the rest of the test run. A port bound and
/// released at once could be handed to a reference engine that another test starts with
/// `--port 0`, whose requests and injected faults the "unused" port would then reach.
func unusedPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
        }
    }
    guard bound else {
        close(descriptor)
        throw EngineTestError("no free port on 127.0.0.1")
    }
    let port = Int(UInt16(bigEndian: address.sin_port))
    heldPorts.withLock { $0[port] = descriptor }
    return port
}
