import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A one-node Slurm cluster of its own in a scratch folder: `munged`, `slurmctld` and `slurmd`
/// from Debian's `munge` and `slurm-wlm`, with their own key, socket, ports, state, spool, logs
/// and pid files, so that it meets no system-wide munge or Slurm, nor another test's cluster.
///
/// Every process it starts carries `markerVariable` in its environment, and so does every process
/// of its jobs (`sbatch` hands a job the environment it was run with), so that `stop` can tell
/// whether anything of the cluster still runs (`processes(of:)`), and end it.
final class SlurmCluster {
    static let daemonPaths = ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd"]
    static let clientPaths = [
        "/usr/bin/sbatch", "/usr/bin/scancel", "/usr/bin/squeue", "/usr/bin/scontrol", "/usr/bin/sinfo",
    ]

    /// Whether a cluster can start here: the daemons and commands are installed
    /// (`scripts/install-deps.sh` installs them), and the tests run as root, which slurmd needs to
    /// run a job as the user who submitted it.
    static var isAvailable: Bool {
        (daemonPaths + clientPaths).allSatisfy(FileManager.default.isExecutableFile) && geteuid() == 0
    }

    static let markerVariable = "PREP_TEST_CLUSTER"

    let folder: URL
    /// The scratch folder's path, as `markerVariable` holds it.
    var marker: String { folder.path }
    /// The daemons started, each with its process id (from its pid file).
    private var daemons: [(name: String, process: Int32)] = []

    /// What a client command (`sbatch`, `scancel`, ...) needs in its environment, and a job gets:
    /// this cluster's configuration and the marker.
    var environment: [String: String] {
        ["SLURM_CONF": folder.appendingPathComponent("slurm.conf").path, Self.markerVariable: marker]
    }

    private init(folder: URL) { self.folder = folder }

    /// Starts a cluster in `folder` (made here), runs `body` with it, and stops it, even when
    /// `body` throws: no job, daemon or job process is left running.
    static func with<Result>(in folder: URL, _ body: (SlurmCluster) throws -> Result) throws -> Result {
        let cluster = SlurmCluster(folder: folder)
        defer { cluster.stop() }
        try cluster.start()
        return try body(cluster)
    }

    // MARK: - Starting

    private func start() throws {
        for name in ["munge", "state", "spool", "log"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(name), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        let key = folder.appendingPathComponent("munge/munge.key")
        var keyBytes = [UInt8](repeating: 0, count: 1024)
        for index in keyBytes.indices { keyBytes[index] = UInt8.random(in: 0...255) }
        try Data(keyBytes).write(to: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: key.path)
        let socket = folder.appendingPathComponent("munge/munge.socket").path
        try startDaemon(
            "munged",
            [
                "--force", "--socket=\(socket)", "--key-file=\(key.path)", "--log-file=\(path("log/munged.log"))",
                "--pid-file=\(path("munge/munged.pid"))", "--seed-file=\(path("munge/munged.seed"))",
            ], pidFile: path("munge/munged.pid"))
        try waitUntil("munged made its socket", seconds: 20) { FileManager.default.fileExists(atPath: socket) }

        try Data().write(to: folder.appendingPathComponent("plugstack.conf"))
        try configuration(mungeSocket: socket).write(
            to: folder.appendingPathComponent("slurm.conf"), atomically: true, encoding: .utf8)
        try startDaemon("slurmctld", ["-f", path("slurm.conf")], pidFile: path("slurmctld.pid"))
        try startDaemon("slurmd", ["-f", path("slurm.conf"), "-N", Self.hostName], pidFile: path("slurmd.pid"))
        try waitUntil("the node is idle", seconds: 60) {
            try client("sinfo", ["--noheader", "--format=%T"]).trimmingCharacters(in: .whitespacesAndNewlines)
                == "idle"
        }
    }

    private func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }

    /// The smallest slurm.conf that runs jobs here: one node named as this machine, with its
    /// cores; no cgroups (proctrack/linuxproc, task/none, no accounting); ports that are free now,
    /// and every file of the cluster in its folder.
    private func configuration(mungeSocket: String) throws -> String {
        let host = Self.hostName
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let (controllerPort, nodePort) = (try Self.freePort(), try Self.freePort())
        return """
            ClusterName=preptest
            SlurmctldHost=\(host)(127.0.0.1)
            SlurmctldPort=\(controllerPort)
            SlurmdPort=\(nodePort)
            SlurmUser=root
            SlurmdUser=root
            AuthType=auth/munge
            CredType=cred/munge
            AuthInfo=socket=\(mungeSocket)
            StateSaveLocation=\(path("state"))
            SlurmdSpoolDir=\(path("spool"))
            SlurmctldPidFile=\(path("slurmctld.pid"))
            SlurmdPidFile=\(path("slurmd.pid"))
            SlurmctldLogFile=\(path("log/slurmctld.log"))
            SlurmdLogFile=\(path("log/slurmd.log"))
            PlugStackConfig=\(path("plugstack.conf"))
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            JobAcctGatherType=jobacct_gather/none
            SelectType=select/cons_tres
            SelectTypeParameters=CR_CPU
            SchedulerType=sched/builtin
            MpiDefault=none
            ReturnToService=2
            KillWait=10
            MinJobAge=600
            NodeName=\(host) NodeAddr=127.0.0.1 CPUs=\(cores) State=UNKNOWN
            PartitionName=main Nodes=\(host) Default=YES MaxTime=INFINITE State=UP

            """
    }

    /// This machine's name up to its first dot, as slurmctld and slurmd find it (`gethostname`).
    static var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        let full = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(full.prefix { $0 != "." })
    }

    /// A TCP port that nothing listens on now (the daemons bind every address).
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw ClusterError("no free TCP port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts a daemon that puts itself in the background, and waits for its pid file.
    private func startDaemon(_ name: String, _ arguments: [String], pidFile: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            ["-c", Self.withoutInheritedDescriptors, Self.daemonPaths.first { $0.hasSuffix("/" + name) }!] + arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let started = try PrepPhotoRunner.Running(process).finish(timeLimit: .seconds(60))
        guard started.status == 0 else { throw ClusterError("\(name) did not start: \(started.standardError)") }
        var identifier: Int32?
        try waitUntil("\(name) wrote its pid file", seconds: 20) {
            identifier = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return identifier != nil
        }
        daemons.append((name, identifier!))
    }

    /// Runs "$0" "$@" with no descriptor open but 0, 1 and 2.
    ///
    /// Foundation's `Process` hands its child one end of a socket pair and takes the end of that
    /// stream for the child's exit, then waits for it (`waitpid`) on the one thread that reaps
    /// every child of the test process. A daemon that kept that end would leave its launcher
    /// unreaped, and one that closes it early, in the foreground, would block that thread until
    /// the daemon ends: every later `Process` of the tests would then hang.
    static let withoutInheritedDescriptors =
        #"for descriptor in /proc/self/fd/*; do number=${descriptor##*/}; [ "$number" -gt 2 ] && exec {number}>&-; done; exec "$0" "$@""#

    // MARK: - Jobs

    /// Runs a Slurm command (`squeue`, `scontrol`, ...) to its end; its standard output.
    func client(_ command: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + command)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let result = try PrepPhotoRunner.Running(process).finish(timeLimit: .seconds(60))
        guard result.status == 0 else {
            throw ClusterError("\(command) \(arguments.joined(separator: " ")): \(result.standardError)")
        }
        return result.standardOutput
    }

    /// One task of an array job as `scontrol show job` tells it once the job has ended.
    struct TaskEnd: Equatable, CustomStringConvertible {
        let state: String
        /// The exit status of the task's script, or 0 when a signal ended it.
        let exitStatus: Int
        /// The signal that ended it, or 0.
        let signal: Int

        var description: String { "\(state) \(exitStatus):\(signal)" }
    }

    /// Each task of the array job `job`, by its array index, as it stands now; nil while some
    /// task has not ended (or not yet started: pending tasks are one record with a range).
    func taskEnds(of job: Int) throws -> [Int: TaskEnd]? {
        var ends: [Int: TaskEnd] = [:]
        let records = try client("scontrol", ["--oneliner", "show", "job", String(job)])
        for record in records.split(separator: "\n") {
            var fields: [String: String] = [:]
            for field in record.split(separator: " ") {
                let pair = field.split(separator: "=", maxSplits: 1)
                if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
            }
            guard let task = fields["ArrayTaskId"].flatMap({ Int($0) }), let state = fields["JobState"],
                Self.endStates.contains(state), let exit = fields["ExitCode"]?.split(separator: ":"), exit.count == 2,
                let status = Int(exit[0]), let signal = Int(exit[1])
            else { return nil }
            ends[task] = TaskEnd(state: state, exitStatus: status, signal: signal)
        }
        return ends
    }

    static let endStates: Set<String> = [
        "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
        "DEADLINE",
    ]

    /// Waits until every task of `job` has ended, and returns how each ended.
    func waitForEnd(of job: Int, seconds: Double = 120) throws -> [Int: TaskEnd] {
        var ends: [Int: TaskEnd]?
        try waitUntil("job \(job) ended", seconds: seconds) {
            ends = try taskEnds(of: job)
            return ends != nil
        }
        return ends!
    }

    /// Whether task `task` of `job` is running now.
    func isRunning(_ job: Int, task: Int) throws -> Bool {
        try client("squeue", ["--noheader", "--jobs=\(job)_\(task)", "--states=RUNNING", "--format=%i"])
            .contains("\(job)_\(task)")
    }

    // MARK: - Stopping

    /// Cancels every job, stops the daemons, and ends (and reports) whatever of the cluster still
    /// runs. Waits a little for each step, never long.
    private func stop() {
        if daemons.contains(where: { $0.name == "slurmctld" }),
            let jobs = try? client("squeue", ["--noheader", "--format=%i"]), !jobs.isEmpty
        {
            _ = try? client("scancel", ["--user=root"])
            try? waitUntil("the jobs ended", seconds: 30) {
                try client("squeue", ["--noheader", "--format=%i"]).isEmpty
            }
        }
        for (name, process) in daemons.reversed() {
            kill(process, SIGTERM)
            if (try? waitUntil("\(name) ended", seconds: 15, { !Self.isAlive(process) })) == nil {
                kill(process, SIGKILL)
            }
        }
        daemons.removeAll()
        try? waitUntil("nothing of the cluster runs", seconds: 10) { Self.processes(of: marker).isEmpty }
        let left = Self.processes(of: marker)
        for (process, _) in left { kill(process, SIGKILL) }
        if !left.isEmpty {
            Issue.record("left running by the cluster, now killed: \(left.map { "\($0.0) \($0.1)" })")
        }
    }

    /// Whether `process` exists and is not a zombie (which its new parent, init, has yet to reap).
    static func isAlive(_ process: Int32) -> Bool {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(process)/stat") else { return false }
        // "PID (COMMAND) STATE ...": the state follows the last parenthesis.
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.endIndex else { return false }
        return stat[close + 2] != UInt8(ascii: "Z")
    }

    /// Every process of `folder` but this one: its environment holds `markerVariable=folder`, or its
    /// working folder or one of its open files is below `folder` (as slurmstepd holds the node's
    /// log: slurmd starts it with an environment of its own), with its command line.
    static func processes(of folder: String) -> [(Int32, String)] {
        let wanted = Data((markerVariable + "=" + folder).utf8)
        func isBelow(_ link: String) -> Bool {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: link))?.hasPrefix(folder + "/") == true
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> (Int32, String)? in
            guard let process = Int32(name), process != getpid() else { return nil }
            let environment = FileManager.default.contents(atPath: "/proc/\(name)/environ") ?? Data()
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(name)/fd")) ?? []
            guard
                environment.split(separator: 0).contains(wanted) || isBelow("/proc/\(name)/cwd")
                    || descriptors.contains(where: { isBelow("/proc/\(name)/fd/\($0)") })
            else { return nil }
            let command = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") ?? Data()
            return (process, String(decoding: command.map { $0 == 0 ? 32 : $0 }, as: UTF8.self))
        }
    }
}

struct ClusterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 50 ms until it holds, for at most `seconds`: for waiting on another
/// process, never for asserting how long something took.
func waitUntil(_ what: String, seconds: Double, _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return }
        usleep(50_000)
    }
    if try condition() { return }
    throw ClusterError("waited \(seconds) s, and still not: \(what)")
}
