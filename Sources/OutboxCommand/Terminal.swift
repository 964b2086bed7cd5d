import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The standard streams. Each call is one `write(2)` of whole lines, so a line that a killed
/// process printed is either all there or not there at all (a pipe takes up to PIPE_BUF bytes
/// whole), and a script reading ids from stdout never sees half of one.
enum Terminal {
    static func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

    static func writeError(_ text: String) {
        progress.clear()
        write(text, to: STDERR_FILENO)
    }

    static var isErrorATerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The upload progress line, shown on stderr when it is a terminal.
    static let progress = ProgressLine(isShown: isErrorATerminal)

    fileprivate static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Platform.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
        bytes.removeAll()
    }

    /// `text` ended with one period: an engine's message quoted at the end of a line often has
    /// its own, and "arrived.." reads as a typo.
    static func sentence(_ text: String) -> String {
        text.hasSuffix(".") || text.hasSuffix("?") || text.hasSuffix("!") ? text : text + "."
    }
}

/// One line on a terminal that shows how far the current capture's upload has come, redrawn at
/// most ten times a second, and cleared before anything else is written.
final class ProgressLine: Sendable {
    private struct State {
        var isVisible = false
        var lastDrawn = ContinuousClock.now - .seconds(1)
    }

    private let isShown: Bool
    private let state = Locked(State())

    init(isShown: Bool) { self.isShown = isShown }

    /// Shows `progress`, unless the line was drawn less than 0.1 s ago and the upload is not done.
    func show(_ progress: UploadProgress) {
        guard isShown else { return }
        state.withLock { state in
            let now = ContinuousClock.now
            guard now - state.lastDrawn >= .milliseconds(100) || progress.bytesSent == progress.totalBytes else {
                return
            }
            state.lastDrawn = now
            state.isVisible = true
            Terminal.write("\r\u{1B}[K" + Self.describe(progress), to: STDERR_FILENO)
        }
    }

    /// Removes the line, if it is there.
    func clear() {
        state.withLock { state in
            guard state.isVisible else { return }
            state.isVisible = false
            Terminal.write("\r\u{1B}[K", to: STDERR_FILENO)
        }
    }

    /// "Sending 3 of 21, plate-3f2a…: 45% (120 of 266 KB)".
    static func describe(_ progress: UploadProgress) -> String {
        let percent = Int((progress.fractionCompleted * 100).rounded(.down))
        return "Sending \(progress.position), \(progress.id): \(percent)%"
            + " (\(kilobytes(progress.bytesSent)) of \(kilobytes(progress.totalBytes)) KB)"
    }

    private static func kilobytes(_ bytes: Int64) -> Int64 { (bytes + 1023) / 1024 }
}
