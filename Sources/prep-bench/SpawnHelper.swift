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
        var pid: pid_t
        var requests: Int32
        var responses: LineReader
    }

    private let channel: Locked<Channel?>

    /// Starts `prep-bench --spawn-helper` with pipes on its stdin and stdout.
    init() throws(BenchError) {
        var toHelper: [Int32] = [0, 0]
        var fromHelper: [Int32] = [0, 0]
        // Close-on-exec, so that no later helper or command holds these pipes open.
        guard pipe(&toHelper) == 0, pipe(&fromHelper) == 0 else {
            throw .toolFailed(command: Self.argument, detail: String(cString: strerror(errno)))
        }
        for descriptor in toHelper + fromHelper { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toHelper[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromHelper[1], 1)
        let executable = BenchOptions.executablePath()
        let argv = [strdup(executable), strdup(Self.argument), nil]
        defer { for pointer in argv { free(pointer) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in environment { free(pointer) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        close(toHelper[0])
        close(fromHelper[1])
        guard error == 0 else {
            close(toHelper[1])
            close(fromHelper[0])
            throw .toolFailed(command: "\(executable) \(Self.argument)", detail: String(cString: strerror(error)))
        }
        channel = Locked(Channel(pid: pid, requests: toHelper[1], responses: LineReader(descriptor: fromHelper[0])))
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
            close(open.requests)
            close(open.responses.descriptor)
            var status: Int32 = 0
            waitpid(open.pid, &status, 0)
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
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                Platform.write(descriptor, $0.baseAddress! + written, bytes.count - written)
            }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return false }
            written += count
        }
        return true
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
            let count = chunk.withUnsafeMutableBytes { Platform.read(descriptor, $0.baseAddress!, 4096) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
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
