import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `prep-photo` executable, as a user's shell would.
struct PrepPhotoRunner {
    /// A finished run of `prep-photo`: how it ended and what it printed.
    struct FinishedRun {
        /// The exit status, or 128 plus the signal number when a signal ended the process (as a shell says).
        let status: Int32
        let standardOutput: String
        let standardError: String
        /// Whether the run was killed for taking longer than its time limit.
        var timedOut = false

        /// The `--json` lines, parsed; output that is not whole lines of JSON objects fails the test.
        func jsonLines(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
            guard !standardOutput.isEmpty else { return [] }
            try #require(standardOutput.hasSuffix("\n"), "the last line is not ended", sourceLocation: sourceLocation)
            return try standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
                return try #require(
                    object as? [String: Any], "not a JSON object: \(line)", sourceLocation: sourceLocation)
            }
        }

        /// The `--json` lines, decoded with the types the issue gives each key.
        func reports() throws -> [PhotoReport] {
            try standardOutput.split(separator: "\n").map {
                try JSONDecoder().decode(PhotoReport.self, from: Data($0.utf8))
            }
        }

        /// The lines of standard error that report a failed photo.
        var errorLines: [Substring] {
            standardError.split(separator: "\n").filter { $0.hasPrefix("prep-photo: error: ") }
        }
    }

    /// How the child is started.
    enum Launch {
        case direct
        /// As the unprivileged user 65534 (nobody) when the tests run as root, whom file permissions do not stop;
        /// directly otherwise. Inputs and the working folder must be readable by that user.
        case unprivileged
        /// With a pseudo-terminal as standard error (and output) through util-linux `script`; everything the
        /// child writes then arrives in `standardOutput`, with the terminal's line endings.
        case terminal
        /// With writes limited to files of this many bytes and SIGXFSZ ignored, so that a write past the limit
        /// fails with EFBIG halfway through a file, as on a full disk.
        case fileSizeLimit(Int)
        /// With its address space limited to this many bytes (`setrlimit(RLIMIT_AS)` through
        /// util-linux `prlimit`): an allocation past it fails instead of taking the machine.
        case memoryLimit(Int)
        /// The arguments are a whole command whose first word is the executable: a wrapper such as
        /// `/usr/bin/time` that runs `prep-photo` itself.
        case command
    }

    /// `prep-photo` beside the test bundle in the build folder.
    static let executable = BuildProducts.url("prep-photo")

    static let setpriv = "/usr/bin/setpriv"
    static let script = "/usr/bin/script"
    static let prlimit = "/usr/bin/prlimit"

    /// Whether the tests run as root, so that a permission test has to drop privileges to mean anything.
    static var isRoot: Bool { geteuid() == 0 }

    /// Runs `prep-photo` to the end, or kills it once `timeLimit` has passed (a test that would
    /// otherwise hang the suite, such as a FIFO that is never written, then fails instead).
    static func run(
        _ arguments: [String], in folder: URL? = nil, launch: Launch = .direct, timeLimit: Duration = .seconds(600)
    ) throws -> FinishedRun {
        let process = Process()
        let command = [executable.path] + arguments
        switch launch {
        case .direct:
            process.executableURL = executable
            process.arguments = arguments
        case .unprivileged where !isRoot:
            process.executableURL = executable
            process.arguments = arguments
        case .unprivileged:
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + command
        case .terminal:
            process.executableURL = URL(fileURLWithPath: script)
            let line = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(
                separator: " ")
            process.arguments = ["--quiet", "--return", "--command", line, "/dev/null"]
        case .command:
            process.executableURL = URL(fileURLWithPath: arguments[0])
            process.arguments = Array(arguments.dropFirst())
        case .memoryLimit(let bytes):
            process.executableURL = URL(fileURLWithPath: prlimit)
            process.arguments = ["--as=\(bytes)"] + command
        case .fileSizeLimit(let bytes):
            // An ignored signal stays ignored across exec; the default action of SIGXFSZ would kill the child.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' XFSZ; exec \(prlimit) --fsize=\(bytes) \"$@\"", "sh"] + command
        }
        if let folder { process.currentDirectoryURL = folder }
        let running = try Running(process)
        return try running.finish(timeLimit: timeLimit)
    }

    /// Runs `script` with `/bin/sh -c`, with the built `prep-photo` first on PATH, as a user's
    /// pipeline (`find -print0 | prep-photo -0 --files-from -`) or job script runs it.
    static func runShell(_ script: String, in folder: URL, environment: [String: String] = [:]) throws -> FinishedRun {
        try startShell(script, in: folder, environment: environment).finish()
    }

    /// Starts `script` like `runShell`, without waiting for it.
    static func startShell(_ script: String, in folder: URL, environment: [String: String] = [:]) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = folder
        var variables = ProcessInfo.processInfo.environment
        variables["PATH"] = executable.deletingLastPathComponent().path + ":" + (variables["PATH"] ?? "/usr/bin:/bin")
        variables.merge(environment) { $1 }
        process.environment = variables
        return try Running(process)
    }

    /// Starts `prep-photo` without waiting for it, so that a test can signal it.
    static func start(_ arguments: [String], in folder: URL) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        return try Running(process)
    }

    /// A started child whose output goes to files (rather than pipes: reading one pipe to its end while
    /// the child waits on the other, full pipe would hang both).
    final class Running {
        let process: Process
        private let capture: URL
        private let output: FileHandle
        private let error: FileHandle

        init(_ process: Process) throws {
            self.process = process
            capture = FileManager.default.temporaryDirectory.appendingPathComponent("prep-photo-capture-\(UUID())")
            try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
            try Data().write(to: capture.appendingPathComponent("stdout"))
            try Data().write(to: capture.appendingPathComponent("stderr"))
            output = try FileHandle(forWritingTo: capture.appendingPathComponent("stdout"))
            error = try FileHandle(forWritingTo: capture.appendingPathComponent("stderr"))
            if process.standardInput == nil { process.standardInput = FileHandle.nullDevice }
            process.standardOutput = output
            process.standardError = error
            // A child inherits the signal mask of the thread that spawns it, and the test's threads
            // (Dispatch's) block every signal: unblock the stop signals around the spawn, so that the
            // child starts with them deliverable, as a shell starts it.
            var stopSignals = sigset_t()
            sigemptyset(&stopSignals)
            for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopSignals, signal) }
            var previous = sigset_t()
            pthread_sigmask(SIG_UNBLOCK, &stopSignals, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            try process.run()
        }

        var processIdentifier: Int32 { process.processIdentifier }

        /// What the child wrote to stdout so far.
        var outputSoFar: String {
            String(decoding: (try? Data(contentsOf: capture.appendingPathComponent("stdout"))) ?? Data(), as: UTF8.self)
        }

        /// Sends `signal` to the child.
        func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

        /// Waits for the child to end and returns what it did.
        ///
        /// - Parameter timeLimit: how long it may still run; past it the child is killed and the
        ///   result says `timedOut`.
        func finish(timeLimit: Duration? = nil) throws -> FinishedRun {
            defer { try? FileManager.default.removeItem(at: capture) }
            var timedOut = false
            if let timeLimit {
                let deadline = ContinuousClock.now + timeLimit
                while process.isRunning, ContinuousClock.now < deadline { usleep(2000) }
                timedOut = process.isRunning
                if timedOut { send(SIGKILL) }
            }
            process.waitUntilExit()
            try output.close()
            try error.close()
            let status =
                process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus
            return FinishedRun(
                status: status,
                standardOutput: String(
                    decoding: try Data(contentsOf: capture.appendingPathComponent("stdout")), as: UTF8.self),
                standardError: String(
                    decoding: try Data(contentsOf: capture.appendingPathComponent("stderr")), as: UTF8.self),
                timedOut: timedOut)
        }
    }
}
