/// The CPU time this process has used.
package enum ProcessClock {
    /// CPU time of this whole process, all threads (`CLOCK_PROCESS_CPUTIME_ID`), in
    /// milliseconds: on a shared machine the figure other processes disturb least, and the
    /// in-process counterpart of the `ru_utime + ru_stime` that `ChildProcess.wait` gives for a child.
    package static func cpuMilliseconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) * 1e3 + Double(spec.tv_nsec) / 1e6
    }
}
