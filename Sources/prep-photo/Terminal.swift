/// Writing to the standard streams without the C globals, which Swift 6 does not allow.
///
/// Each call is one `write(2)` of whole lines where the system allows it, so that lines from
/// several processes writing into one pipe (`xargs -P`) do not cut into each other.
enum Terminal {
    static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }
    static func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

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

    static var isErrorATerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// One decimal: "12.5".
    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
