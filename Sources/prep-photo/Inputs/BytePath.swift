import CommandLineParser

/// A file path as the bytes the file system knows it by.
///
/// Linux file names are bytes, not text: a name from an old camera card or a Windows archive may
/// not be UTF-8, and a `String` would replace those bytes and open another file, or none. Paths
/// stay bytes from the command line (or the file list) to the system calls, and become text only
/// to be shown, with odd bytes escaped (`caf\xE9.jpg`).
struct BytePath: Hashable, Sendable, CustomStringConvertible, SystemPath {
    private(set) var bytes: [UInt8]

    init(bytes: some Sequence<UInt8>) { self.bytes = Array(bytes) }

    init(_ text: String) { bytes = Array(text.utf8) }

    init(_ argument: CommandLineArgument) { bytes = argument.bytes }

    /// The path as a person reads it, for messages and the JSON report.
    var description: String { escapedForDisplay(bytes) }

    var isAbsolute: Bool { bytes.first == slash }

    /// The path shown as a folder, with one slash at its end: `prepared/`.
    var asFolder: String { bytes.last == slash ? description : description + "/" }

    /// `self/name`, without doubling a slash.
    func appending(_ name: some Collection<UInt8>) -> BytePath {
        guard !bytes.isEmpty else { return BytePath(bytes: name) }
        return BytePath(bytes: bytes.last == slash ? bytes + name : bytes + [slash] + name)
    }

    func appending(_ name: String) -> BytePath { appending(Array(name.utf8)) }

    /// The components between slashes, without empty ones (`a//b/` is `a`, `b`).
    var components: [ArraySlice<UInt8>] { bytes.split(separator: slash) }

    /// The last component: the file's name.
    var lastComponent: ArraySlice<UInt8> { components.last ?? bytes[...] }

    /// The path of the folder holding this one, or nil for a single component.
    var parent: BytePath? {
        let parts = components
        guard parts.count > 1 else { return isAbsolute && parts.count == 1 ? BytePath("/") : nil }
        return BytePath(bytes: (isAbsolute ? [slash] : []) + parts.dropLast().joined(separator: [slash]))
    }

    /// The path with `.` and empty components gone and `..` taken back, made absolute from
    /// `workingFolder`: how `--base` and an input are compared without touching the disk.
    func lexicallyAbsolute(from workingFolder: BytePath) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = isAbsolute ? [] : workingFolder.lexicallyAbsolute(from: BytePath("/"))
        for part in components {
            if part.elementsEqual([dot]) { continue }
            if part.elementsEqual([dot, dot]) {
                _ = result.popLast()
            } else {
                result.append(part)
            }
        }
        return result
    }

    /// Runs `body` with the path as a NUL-terminated C string.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }
}

private let slash = UInt8(ascii: "/")
private let dot = UInt8(ascii: ".")
