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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in environment { free(pointer) } }

        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        let spawnError = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environment)
        guard spawnError == 0 else {
            throw .toolFailed(
                command: arguments[0], detail: "it could not be started: \(String(cString: strerror(spawnError)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw .toolFailed(command: arguments[0], detail: "wait4 failed: \(String(cString: strerror(errno)))")
            }
        }
        let wall = clock.now - start

        let exitedNormally = status & 0x7f == 0
        let exitCode = (status >> 8) & 0xff
        guard exitedNormally, exitCode == 0 else {
            let tail = (try? String(contentsOfFile: stderrPath, encoding: .utf8)).map { String($0.suffix(600)) } ?? ""
            let how = exitedNormally ? "exited with \(exitCode)" : "was killed by signal \(status & 0x7f)"
            throw .toolFailed(command: arguments.joined(separator: " "), detail: "it \(how): \(tail)")
        }
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1e3 + Double(time.tv_usec) / 1e3 }
        return ProcessMeasurement(
            wallMS: wall.milliseconds, cpuMS: milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime),
            peakRSSMB: Platform.peakResidentMiB(usage))
    }
}
