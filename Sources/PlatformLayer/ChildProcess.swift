/// A command started without a shell (`posix_spawn`), its standard descriptors set up by
/// `StandardStream`s, and reaped by `wait`, which reports what it cost (`wait4`'s `rusage`):
/// the child's own figures, not the sum of every child this process ever had.
package struct ChildProcess: Sendable {
    /// What the child finds on one of its descriptors when it starts.
    package enum StandardStream: Sendable {
        /// The file at `path`, opened for reading.
        case reading(path: String)
        /// The file at `path`, opened for writing; when `replacing`, created (0644) if absent
        /// and emptied if present.
        case writing(path: String, replacing: Bool)
        /// A descriptor of this process (an end of a `DescriptorCalls.makePipe`).
        case descriptor(Int32)
    }

    /// How a child ended, and what it cost.
    package struct Ending {
        /// The raw status `wait4` gave.
        package let status: Int32
        /// The child's resource use.
        package let usage: rusage

        /// Whether it exited rather than being killed by a signal.
        package var exitedNormally: Bool { status & 0x7f == 0 }
        /// Its exit code, when it exited.
        package var exitCode: Int32 { (status >> 8) & 0xff }
        /// The signal that killed it, when it did not exit.
        package var signal: Int32 { status & 0x7f }
        /// User and system time together, in milliseconds.
        package var cpuMilliseconds: Double { Self.milliseconds(usage.ru_utime) + Self.milliseconds(usage.ru_stime) }
        /// Its peak resident set, in MiB (`Platform.peakResidentMiB`).
        package var peakResidentMiB: Double { Platform.peakResidentMiB(usage) }

        private static func milliseconds(_ time: timeval) -> Double {
            Double(time.tv_sec) * 1e3 + Double(time.tv_usec) / 1e3
        }
    }

    /// The child's process id.
    package let id: pid_t

    /// Starts `arguments` (the first is the executable: looked up on PATH when `searchesPath`
    /// and it has no slash) with `environment` and `streams` on the descriptors they are keyed
    /// by; every other descriptor is as this process has it.
    ///
    /// - Throws: `SystemError` "posix_spawn" on the executable when it cannot start.
    package static func start(
        _ arguments: [String], searchesPath: Bool, environment: [String: String], streams: [Int32: StandardStream]
    ) throws(SystemError) -> ChildProcess {
        let actions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
        defer { actions.deallocate() }
        posix_spawn_file_actions_init(actions)
        defer { posix_spawn_file_actions_destroy(actions) }
        for (target, stream) in streams.sorted(by: { $0.key < $1.key }) {
            switch stream {
            case .reading(let path):
                posix_spawn_file_actions_addopen(actions, target, path, O_RDONLY, 0)
            case .writing(let path, let replacing):
                let flags = O_WRONLY | (replacing ? O_CREAT | O_TRUNC : 0)
                posix_spawn_file_actions_addopen(actions, target, path, flags, 0o644)
            case .descriptor(let source):
                posix_spawn_file_actions_adddup2(actions, source, target)
            }
        }

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in variables { free(pointer) } }
        var id: pid_t = 0
        let result =
            searchesPath
            ? posix_spawnp(&id, arguments[0], actions, nil, argv, variables)
            : posix_spawn(&id, arguments[0], actions, nil, argv, variables)
        guard result == 0 else { throw SystemError(operation: "posix_spawn", path: arguments[0], code: result) }
        return ChildProcess(id: id)
    }

    /// Waits for the child to end and reaps it, retrying interruptions.
    ///
    /// - Throws: `SystemError` "wait4" when it cannot wait (the child is not ours, or gone).
    package func wait(command: String) throws(SystemError) -> Ending {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(id, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw .last("wait4", path: command) }
        }
        return Ending(status: status, usage: usage)
    }
}
