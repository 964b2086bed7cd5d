import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The built `outbox` executable (or `notes-example`) as a subprocess, as a user's shell (or a
/// killer) runs it.
///
/// Sendable by hand so that a killer thread can watch it: what changes after `init` is only the
/// buffers, each behind a mutex, and Process, which may be asked from any thread.
final class OutboxProcess: @unchecked Sendable {
    /// A finished run of the process: how it ended and what it printed.
    struct FinishedRun {
        let status: Int32
        /// Whether SIGKILL ended it.
        let wasKilled: Bool
        let standardOutput: String
        let standardError: String

        /// The complete lines of stdout: a line cut off by a kill is not one.
        var lines: [String] {
            var lines = standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.removeLast()  // after the last newline: empty, or a line cut short
            return lines
        }

        /// The JSON lines of stdout, parsed.
        var jsonLines: [[String: Any]] {
            lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    /// The build folder, where the test bundle and the executables are.
    static let buildFolder = BuildProducts.folder

    /// `outbox` beside the test bundle in the build folder.
    static let executable = buildFolder.appendingPathComponent("outbox")

    /// `notes-example`, the small notes app on the outbox, beside it.
    static let notesExample = buildFolder.appendingPathComponent("notes-example")

    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    /// What the pipes delivered so far, read on threads of their own so that a full pipe never blocks the child.
    private let outputData = Buffer()
    private let errorData = Buffer()
    private let readers = DispatchGroup()

    /// Bytes a reader thread appends to while the test reads them.
    private final class Buffer: Sendable {
        private let data = Locked(Data())
        func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }
        var contents: Data { data.withLock { $0 } }
    }

    /// Starts `outbox` with `arguments`.
    ///
    /// - Parameter asNobody: Whether to run it as the user nobody (65534) through setpriv when the
    ///   tests run as root, so that file permissions stop it (they stop any other user anyway).
    /// - Parameter environment: Variables to set for it on top of the test's own.
    init(
        _ arguments: [String], asNobody: Bool = false, executable: URL = OutboxProcess.executable,
        environment: [String: String] = [:]
    ) throws {
        if asNobody, geteuid() == 0 {
            process.executableURL = URL(fileURLWithPath: Self.setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        for (pipe, buffer) in [(output, outputData), (errors, errorData)] {
            // read(2) returns what the pipe holds as soon as it holds anything; FileHandle's
            // availableData on Linux waits to fill a larger buffer, which hides a line until the end.
            // A thread of its own, not Dispatch's global queue: that runs as many blocks at once as
            // there are cores, and a reader blocked on another process's pipe would hold up this one.
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            readers.enter()
            Thread { [readers] in
                defer { readers.leave() }
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { return }
                    buffer.append(Data(chunk[..<count]))
                }
            }.start()
        }
    }

    /// How many whole lines stdout has shown so far.
    var outputLineCount: Int { outputData.contents.count { $0 == UInt8(ascii: "\n") } }

    var isRunning: Bool { process.isRunning }

    /// The process's peak resident memory so far (`VmHWM` in /proc), in bytes; nil once it ended.
    var peakResidentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kibibytes = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        else { return nil }
        return kibibytes * 1024
    }

    /// Sends `signal` to the process, if it is still running.
    ///
    /// - Returns: Whether it was running.
    @discardableResult
    func send(_ signal: Int32) -> Bool {
        guard process.isRunning else { return false }
        return kill(process.processIdentifier, signal) == 0
    }

    /// Sends SIGKILL once stdout shows `lines` whole lines and `delay` more has passed, or when
    /// the process ends first, does nothing.
    ///
    /// From a thread of its own rather than a task: the tests' tasks share Swift's cooperative
    /// threads with CPU-heavy tests running beside them, and a task waiting for its moment can
    /// wake hundreds of milliseconds late, after the process it should have killed has finished.
    func scheduleKill(afterLines lines: Int = 0, delay: Duration) {
        let microseconds = delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000
        Thread { [self] in
            while isRunning, outputLineCount < lines { usleep(100) }
            usleep(useconds_t(microseconds))
            send(SIGKILL)
        }.start()
    }

    /// Waits for the process to end and returns what it printed.
    func wait() -> FinishedRun {
        process.waitUntilExit()
        readers.wait()
        return FinishedRun(
            status: process.terminationStatus,
            wasKilled: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
            standardOutput: String(decoding: outputData.contents, as: UTF8.self),
            standardError: String(decoding: errorData.contents, as: UTF8.self))
    }

    /// `wait()` on a thread of its own rather than on one of Swift concurrency's few (two on a
    /// 2-core machine): a test that waits for processes for minutes, as the kill test does, then
    /// holds none of them from the tests that run beside it.
    func finished() async -> FinishedRun {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.wait()) }
        }
    }

    /// Runs `outbox` (or another of the package's executables) to the end.
    static func run(
        _ arguments: [String], asNobody: Bool = false, executable: URL = OutboxProcess.executable,
        environment: [String: String] = [:]
    ) throws -> FinishedRun {
        try OutboxProcess(arguments, asNobody: asNobody, executable: executable, environment: environment).wait()
    }

    /// util-linux's setpriv, which runs a command as another user.
    static let setpriv = "/usr/bin/setpriv"

    /// Whether a test can run `outbox` as someone whom file permissions stop: it runs as root
    /// with setpriv at hand, or as another user already.
    static var canDropPrivileges: Bool {
        geteuid() != 0 || FileManager.default.isExecutableFile(atPath: setpriv)
    }
}
