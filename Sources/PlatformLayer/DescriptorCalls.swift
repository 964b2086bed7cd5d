/// The POSIX calls on descriptors themselves rather than on the files behind them: pipes,
/// copies, and pointing the standard streams elsewhere. The descriptors they return are the
/// caller's to close, once (`Platform.close`).
package enum DescriptorCalls {
    /// A new pipe, both ends close-on-exec, so that no command started later holds it open.
    ///
    /// - Throws: `SystemError` "pipe" when the process or system has no descriptors left.
    package static func makePipe() throws(SystemError) -> (reading: Int32, writing: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .last("pipe", path: "a pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// A close-on-exec copy of `descriptor` numbered `lowest` or above, or nil when there is none.
    package static func copy(of descriptor: Int32, atLeast lowest: Int32) -> Int32? {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, lowest)
        return copy >= 0 ? copy : nil
    }

    /// Whether `descriptor` is a terminal.
    package static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// Points each of `descriptors` at /dev/null, so that what is written to them goes nowhere.
    /// Best effort: when /dev/null cannot be opened they stay as they are.
    package static func pointAtNull(_ descriptors: [Int32]) {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard null >= 0 else { return }
        for descriptor in descriptors { _ = dup2(null, descriptor) }
        _ = Platform.close(null)
    }
}
