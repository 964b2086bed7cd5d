internal import PlatformLayer

/// The standard streams of a command, written without the C globals, which Swift 6 does not allow.
///
/// Each call is one `write(2)` of whole lines where the system allows it, so that a line a killed
/// process printed is either all there or not at all (a pipe takes up to PIPE_BUF bytes whole): a
/// script reading ids from stdout never sees half of one, and lines from several processes
/// writing into one pipe (`xargs -P`) do not cut into each other.
///
/// The lines go to copies of descriptors 1 and 2, so that `keepLibrariesQuiet` can point those at
/// /dev/null without silencing the command.
package enum Terminal {
    package static func writeOutput(_ text: String) { write(text, to: streams.output) }

    /// Writes to stderr, after clearing the progress line if it is shown.
    package static func writeError(_ text: String) {
        progress.clear()
        write(text, to: streams.error)
    }

    package static var isErrorATerminal: Bool { DescriptorCalls.isTerminal(streams.error) }

    /// The progress line, shown on stderr when it is a terminal.
    package static let progress = ProgressLine(isShown: isErrorATerminal)

    /// The descriptors our lines go to: 1 and 2 until `keepLibrariesQuiet` has run.
    private static let streams: (output: Int32, error: Int32) = {
        guard let output = DescriptorCalls.copy(of: STDOUT_FILENO, atLeast: 3),
            let error = DescriptorCalls.copy(of: STDERR_FILENO, atLeast: 3)
        else { return (STDOUT_FILENO, STDERR_FILENO) }
        return (output, error)
    }()

    /// Keeps our lines on the streams the command was given and sends whatever the C libraries
    /// write to descriptors 1 and 2 to /dev/null: libde265 and dav1d print their own diagnostics
    /// there ("SPS error", "Error parsing OBU data"), which carry what they read from the file and
    /// which ImagePrep says in its own words instead. Call it before any other thread starts.
    package static func keepLibrariesQuiet() {
        let ours = streams
        guard ours.output != STDOUT_FILENO, ours.error != STDERR_FILENO else { return }
        DescriptorCalls.pointAtNull([STDOUT_FILENO, STDERR_FILENO])
    }

    /// Writes `text` to stderr without clearing the progress line: the line's own drawing.
    static func writeErrorInPlace(_ text: String) { write(text, to: streams.error) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        // A stream that cannot be written (closed, or a full disk) loses the text: there is
        // nowhere left to say so.
        text.withUTF8 { bytes in
            try? FileCalls.writeAll(UnsafeRawBufferPointer(bytes), to: descriptor, path: "a standard stream")
        }
    }

    /// One decimal: "12.5".
    package static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `text` ended with one period: an engine's message quoted at the end of a line often has
    /// its own, and "arrived.." reads as a typo.
    package static func sentence(_ text: String) -> String {
        text.hasSuffix(".") || text.hasSuffix("?") || text.hasSuffix("!") ? text : text + "."
    }
}
