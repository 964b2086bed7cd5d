import Foundation
import Testing

/// Runs the built `prep-photo` executable, as a user's shell would.
struct PrepPhotoRunner {
    struct Result {
        /// The exit status, or 128 plus the signal number when a signal ended the process (as a shell says).
        let status: Int32
        let standardOutput: String
        let standardError: String

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
    }

    /// `prep-photo` beside the test bundle in the build folder.
    static let executable: URL = {
        var folder = Bundle.main.bundleURL
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("prep-photo")
    }()

    static let setpriv = "/usr/bin/setpriv"
    static let script = "/usr/bin/script"
    static let prlimit = "/usr/bin/prlimit"

    /// Whether the tests run as root, so that a permission test has to drop privileges to mean anything.
    static var isRoot: Bool { geteuid() == 0 }

    static func run(_ arguments: [String], in folder: URL? = nil, launch: Launch = .direct) throws -> Result {
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
        case .fileSizeLimit(let bytes):
            // An ignored signal stays ignored across exec; the default action of SIGXFSZ would kill the child.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' XFSZ; exec \(prlimit) --fsize=\(bytes) \"$@\"", "sh"] + command
        }
        if let folder { process.currentDirectoryURL = folder }

        // Files rather than pipes: reading one pipe to its end while the child waits on the other, full pipe
        // would hang both.
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("prep-photo-capture-\(UUID())")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: capture) }
        let outputURL = capture.appendingPathComponent("stdout")
        let errorURL = capture.appendingPathComponent("stderr")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        try output.close()
        try error.close()
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Result(
            status: status, standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}
