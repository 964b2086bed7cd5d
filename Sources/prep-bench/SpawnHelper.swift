import Foundation

/// A small child process that starts the timed commands for the benchmark, so that their peak
/// RSS is their own.
///
/// Linux records the peak RSS of the memory a process had before `execve` in the `ru_maxrss`
/// that `wait4` later reports, and glibc's `posix_spawn` runs the child on the parent's memory
/// (`CLONE_VM`) until the exec. Spawned straight from the benchmark, every command would report
/// at least the benchmark's own high-water mark (which holds decoded photos and workspaces).
/// A helper started before the benchmark allocates anything has a high-water mark of a few MB,
/// and the commands it spawns report what they really use. `floorMB` measures that floor.
final class SpawnHelper: Sendable {
    /// The hidden first argument that makes `prep-bench` act as a helper.
    static let argument = "--spawn-helper"

    private struct Request: Codable {
        var arguments: [String]
        var stderrPath: String
    }

    private struct Response: Codable {
        var measurement: ProcessMeasurement?
        var error: BenchError?
    }

    private struct Channel {
        var child: ChildProcess
        var requests: Int32
        var responses: LineReader
    }

    private let channel: Locked<Channel?>

    /// Starts `prep-bench --spawn-helper` with pipes on its stdin and stdout.
    init() throws(BenchError) {
        let toHelper: (reading: Int32, writing: Int32)
        let fromHelper: (reading: Int32, writing: Int32)
        do throws(SystemError) {
            toHelper = try DescriptorCalls.makePipe()
            do throws(SystemError) {
                fromHelper = try DescriptorCalls.makePipe()
            } catch {
                _ = Platform.close(toHelper.reading)
                _ = Platform.close(toHelper.writing)
                throw error
            }
        } catch {
            throw .toolFailed(command: Self.argument, detail: error.reason)
        }
        let executable = BenchOptions.executablePath()
        let started = Result { () throws(SystemError) in
            try ChildProcess.start(
                [executable, Self.argument], searchesPath: false, environment: ProcessInfo.processInfo.environment,
                streams: [0: .descriptor(toHelper.reading), 1: .descriptor(fromHelper.writing)])
        }
        _ = Platform.close(toHelper.reading)
        _ = Platform.close(fromHelper.writing)
        switch started {
        case .success(let child):
            channel = Locked(
                Channel(
                    child: child, requests: toHelper.writing, responses: LineReader(descriptor: fromHelper.reading)))
        case .failure(let error):
            _ = Platform.close(toHelper.writing)
            _ = Platform.close(fromHelper.reading)
            throw .toolFailed(command: "\(executable) \(Self.argument)", detail: error.reason)
        }
    }

    /// Runs `arguments` in the helper and waits for it; see `ProcessRun.run`.
    func run(_ arguments: [String], stderrPath: String) throws(BenchError) -> ProcessMeasurement {
        let response: Response? = channel.withLock { channel in
            guard var open = channel,
                let request = try? JSONEncoder().encode(Request(arguments: arguments, stderrPath: stderrPath)),
                Self.writeLine(request, to: open.requests),
                let line = open.responses.nextLine()
            else { return nil }
            channel = open
            return try? JSONDecoder().decode(Response.self, from: line)
        }
        guard let response else {
            throw .toolFailed(command: "\(Self.argument)", detail: "the spawn helper stopped answering")
        }
        if let error = response.error { throw error }
        guard let measurement = response.measurement else {
            throw .toolFailed(command: arguments[0], detail: "no measurement")
        }
        return measurement
    }

    /// Closes the helper's stdin, which ends it, and reaps it.
    func stop() {
        channel.withLock { channel in
            guard let open = channel else { return }
            _ = Platform.close(open.requests)
            _ = Platform.close(open.responses.descriptor)
            _ = try? open.child.wait(command: Self.argument)
            channel = nil
        }
    }

    /// The helper's side: one request per line on stdin, one response per line on stdout, until
    /// stdin closes.
    static func serve() -> Never {
        var requests = LineReader(descriptor: 0)
        while let line = requests.nextLine() {
            var response = Response()
            do {
                let request = try JSONDecoder().decode(Request.self, from: line)
                response.measurement = try ProcessRun.run(request.arguments, stderrPath: request.stderrPath)
            } catch let error as BenchError {
                response.error = error
            } catch {
                response.error = .toolFailed(command: argument, detail: "unreadable request: \(error)")
            }
            guard let data = try? JSONEncoder().encode(response), writeLine(data, to: 1) else { exit(1) }
        }
        exit(0)
    }

    private static func writeLine(_ data: Data, to descriptor: Int32) -> Bool {
        let bytes = [UInt8](data) + [UInt8(ascii: "\n")]
        return bytes.withUnsafeBytes { buffer in
            (try? FileCalls.writeAll(buffer, to: descriptor, path: "the spawn helper's pipe")) != nil
        }
    }
}

/// Reads newline-terminated lines from a descriptor (JSON never holds a raw newline).
struct LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line without its newline; nil at end of input.
    mutating func nextLine() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes {
                try? FileCalls.readSome(descriptor, into: $0, path: "the spawn helper's pipe")
            }
            guard let count, count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}

/// One spawn helper per batch worker, each used by one thread at a time.
final class SpawnHelperPool: Sendable {
    private let helpers: [SpawnHelper]
    private let free: Locked<[Int]>

    init(count: Int) throws(BenchError) {
        var helpers: [SpawnHelper] = []
        for _ in 0..<max(1, count) { helpers.append(try SpawnHelper()) }
        self.helpers = helpers
        free = Locked(Array(helpers.indices))
    }

    /// Runs `arguments` in whichever helper is free; at most `count` at once.
    func run(_ arguments: [String], stderrPath: String) throws(BenchError) -> ProcessMeasurement {
        guard let index = free.withLock({ $0.popLast() }) else {
            preconditionFailure("more concurrent commands than spawn helpers")
        }
        defer { free.withLock { $0.append(index) } }
        return try helpers[index].run(arguments, stderrPath: stderrPath)
    }

    func stop() { for helper in helpers { helper.stop() } }
}
