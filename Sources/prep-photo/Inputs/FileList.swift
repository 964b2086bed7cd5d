/// Reads `--files-from`: one path per line, or per NUL with `-0` (`find -print0`), as bytes.
///
/// Lines are read as they come, never the whole file at once past what the paths hold, and a
/// line longer than any path can be (`PATH_MAX`, 4096 bytes) is refused rather than kept in
/// memory, so that a list that is not a list (a photo given by mistake, a NUL list read without
/// `-0`) cannot take all the memory.
enum FileList {
    static let longestPath = 4096

    /// One entry of a list.
    enum Entry {
        case path(BytePath)
        /// A line longer than `longestPath`; its first bytes, to name it.
        case tooLong(prefix: [UInt8])
        /// A line with a NUL byte, which no path has: a NUL-separated list read without `-0`.
        case containsNUL(BytePath)
    }

    /// Calls `body` with each entry of the list at `path` (`-` for standard input), in order;
    /// empty lines are skipped.
    ///
    /// - Throws: the system's error when the list cannot be opened or read.
    static func read(_ path: BytePath, separator: UInt8, _ body: (Entry) -> Void) throws(SystemError) {
        let descriptor = try FileSystem.openForReading(path)
        defer { if path.bytes != [UInt8(ascii: "-")] { FileSystem.close(descriptor) } }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var line: [UInt8] = []
        var isTooLong = false
        func finish() {
            defer {
                line.removeAll(keepingCapacity: true)
                isTooLong = false
            }
            if isTooLong {
                body(.tooLong(prefix: Array(line.prefix(60))))
            } else if line.contains(0) {
                body(.containsNUL(BytePath(bytes: line.map { $0 == 0 ? UInt8(ascii: " ") : $0 })))
            } else if !line.isEmpty {
                body(.path(BytePath(bytes: line)))
            }
        }
        while true {
            let count = try FileSystem.read(descriptor, into: &buffer, path: path)
            if count == 0 { break }
            var start = 0
            for index in 0..<count where buffer[index] == separator {
                append(buffer[start..<index], to: &line, isTooLong: &isTooLong)
                finish()
                start = index + 1
            }
            append(buffer[start..<count], to: &line, isTooLong: &isTooLong)
        }
        finish()
    }

    private static func append(_ bytes: ArraySlice<UInt8>, to line: inout [UInt8], isTooLong: inout Bool) {
        if isTooLong { return }
        line += bytes
        if line.count > longestPath { isTooLong = true }
    }
}
