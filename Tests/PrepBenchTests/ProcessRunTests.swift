import Foundation
import Testing

@testable import prep_bench

/// `ProcessRun` on real children (`sh`) through the platform layer's `ChildProcess`: where their
/// standard streams go, and how their exit, a signal or a missing command reads in the benchmark's
/// error, word for word as before the calls moved.
@Suite struct ProcessRunTests {
    let stderrPath = NSTemporaryDirectory() + "ProcessRunTests-\(UUID().uuidString).err"

    /// Runs `script` in `sh`, removing its stderr file afterwards.
    func run(_ script: String) throws(BenchError) -> ProcessMeasurement {
        defer { try? FileManager.default.removeItem(atPath: stderrPath) }
        return try ProcessRun.run(["sh", "-c", script], stderrPath: stderrPath)
    }

    @Test func aChildsStderrReplacesWhatTheFileHeldAndItIsMeasured() throws {
        try String(repeating: "left from an earlier run ", count: 100)
            .write(toFile: stderrPath, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: stderrPath) }
        let measurement = try ProcessRun.run(["sh", "-c", "echo new >&2"], stderrPath: stderrPath)
        #expect(try String(contentsOfFile: stderrPath, encoding: .utf8) == "new\n")
        #expect(measurement.peakRSSMB > 0, "wait4's rusage is the child's")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd/0")))
    func aChildsStdinAndStdoutAreDevNull() throws {
        defer { try? FileManager.default.removeItem(atPath: stderrPath) }
        _ = try ProcessRun.run(
            ["sh", "-c", #"links=$(readlink /proc/$$/fd/0 /proc/$$/fd/1); echo "$links" >&2"#], stderrPath: stderrPath)
        #expect(try String(contentsOfFile: stderrPath, encoding: .utf8) == "/dev/null\n/dev/null\n")
    }

    @Test func aFailingChildReportsItsExitCodeAndTheEndOfItsStderr() {
        #expect(
            throws: BenchError.toolFailed(
                command: "sh -c echo broken >&2; exit 3", detail: "it exited with 3: broken\n")
        ) {
            try run("echo broken >&2; exit 3")
        }
    }

    @Test func aKilledChildReportsTheSignal() {
        #expect(throws: BenchError.toolFailed(command: "sh -c kill -KILL $$", detail: "it was killed by signal 9: ")) {
            try run("kill -KILL $$")
        }
    }

    @Test func aMissingCommandCannotBeStarted() {
        let name = "no-such-command-\(UUID().uuidString)"
        #expect(
            throws: BenchError.toolFailed(command: name, detail: "it could not be started: No such file or directory")
        ) {
            try ProcessRun.run([name], stderrPath: stderrPath)
        }
    }
}
