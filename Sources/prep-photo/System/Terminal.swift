/// Writing to the standard streams without the C globals, which Swift 6 does not allow.
///
/// Each call is one `write(2)` of whole lines where the system allows it, so that lines from
/// several processes writing into one pipe (`xargs -P`) do not cut into each other.
///
/// prep-photo writes through copies of stdout and stderr of its own, and points descriptors 1 and
/// 2 at /dev/null (`keepLibrariesQuiet`): libde265 and dav1d print their own diagnostics there
/// ("SPS error", "Error parsing OBU data"), which carry what they read from the file and which
/// ImagePrep says in its own words instead.
enum Terminal {
    static func writeError(_ text: String) { write(text, to: streams.error) }
    static func writeOutput(_ text: String) { write(text, to: streams.output) }

    /// The descriptors our lines go to: 1 and 2 until `keepLibrariesQuiet` has run.
    private static let streams: (output: Int32, error: Int32) = {
        let output = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        let error = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        guard output >= 0, error >= 0 else { return (STDOUT_FILENO, STDERR_FILENO) }
        return (output, error)
    }()

    /// Keeps our lines on the streams prep-photo was given and sends whatever the C libraries
    /// write to descriptors 1 and 2 to /dev/null. Call it before any other thread starts.
    static func keepLibrariesQuiet() {
        let ours = streams
        guard ours.output != STDOUT_FILENO, ours.error != STDERR_FILENO else { return }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard null >= 0 else { return }
        _ = dup2(null, STDOUT_FILENO)
        _ = dup2(null, STDERR_FILENO)
        _ = Platform.close(null)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Platform.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }

    static var isErrorATerminal: Bool { isatty(streams.error) == 1 }

    /// One decimal: "12.5".
    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
