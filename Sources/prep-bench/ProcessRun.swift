import Foundation

/// What one child process cost, as `wait4` reports it (the same figures `/usr/bin/time -v` and
/// `../shared/bench/bench.py` print).
struct ProcessMeasurement: Sendable, Codable {
    /// Spawn to reaped, in milliseconds.
    var wallMS: Double
    /// `ru_utime + ru_stime` of the child, in milliseconds.
    var cpuMS: Double
    /// `ru_maxrss` of the child, in MiB (Linux reports KiB).
    var peakRSSMB: Double
}

/// Runs a command without a shell and measures it through `wait4`, so that the peak RSS is the
/// child's own and not the largest of all children this benchmark ever had (which
/// `getrusage(RUSAGE_CHILDREN)` would give).
enum ProcessRun {
    /// Runs `arguments` (the first is the executable, looked up on PATH when it has no slash),
    /// with stdin and stdout on /dev/null and stderr into `stderrPath`.
    ///
    /// - Throws: `BenchError.toolFailed` when it cannot start, or exits non-zero (with the end of its stderr).
    static func run(_ arguments: [String], stderrPath: String) throws(BenchError) -> ProcessMeasurement {
        let clock = ContinuousClock()
        let start = clock.now
        let child: ChildProcess
        do throws(SystemError) {
            child = try ChildProcess.start(
                arguments, searchesPath: true, environment: ProcessInfo.processInfo.environment,
                streams: [
                    0: .reading(path: "/dev/null"), 1: .writing(path: "/dev/null", replacing: false),
                    2: .writing(path: stderrPath, replacing: true),
                ])
        } catch {
            throw .toolFailed(command: arguments[0], detail: "it could not be started: \(error.reason)")
        }
        let ending: ChildProcess.Ending
        do throws(SystemError) {
            ending = try child.wait(command: arguments[0])
        } catch {
            throw .toolFailed(command: arguments[0], detail: "wait4 failed: \(error.reason)")
        }
        let wall = clock.now - start

        guard ending.exitedNormally, ending.exitCode == 0 else {
            let tail = (try? String(contentsOfFile: stderrPath, encoding: .utf8)).map { String($0.suffix(600)) } ?? ""
            let how = ending.exitedNormally ? "exited with \(ending.exitCode)" : "was killed by signal \(ending.signal)"
            throw .toolFailed(command: arguments.joined(separator: " "), detail: "it \(how): \(tail)")
        }
        return ProcessMeasurement(
            wallMS: wall.milliseconds, cpuMS: ending.cpuMilliseconds, peakRSSMB: ending.peakResidentMiB)
    }
}
