internal import PlatformLayer

/// One word of a command line, kept as the bytes the program was given.
///
/// A file name on Linux is any bytes but `/` and NUL, so a path that is not UTF-8 is still a path:
/// it is opened by its bytes, and shown with its odd bytes escaped (`caf\xE9.jpg`).
public struct CommandLineArgument: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public init(_ text: String) { bytes = Array(text.utf8) }

    public init(stringLiteral text: String) { self.init(text) }

    /// The process's own arguments, program name dropped, byte for byte (`CommandLine.arguments`
    /// replaces bytes that are not UTF-8, which would open another file).
    public static var processArguments: [CommandLineArgument] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return CommandLineArgument(bytes: []) }
            var length = 0
            while pointer[length] != 0 { length += 1 }
            return CommandLineArgument(
                bytes: UnsafeRawBufferPointer(start: pointer, count: length).map { $0 })
        }
    }

    /// The word as text, or nil when its bytes are not UTF-8.
    public var text: String? { String(validUTF8: bytes) }

    /// The word as text, for an argument that must be text.
    ///
    /// - Parameter placeholder: the argument's name in the usage line, `<folder>`.
    /// - Throws: `UsageError` when the bytes are not UTF-8.
    public func text(for placeholder: String) throws(UsageError) -> String {
        guard let text else {
            throw UsageError("The value '\(self)' is invalid for '\(placeholder)': it is not UTF-8 text")
        }
        return text
    }

    /// The word as a person reads it: see `escapedForDisplay(_:)`.
    public var description: String { escapedForDisplay(bytes) }
}

/// Bytes shown as text: UTF-8 as it is, and each byte that is not part of valid UTF-8, or that is a
/// control character (a newline, or an escape sequence that would drive the terminal), as `\xHH`.
///
/// - Parameter bytes: a file name, a path or any word from outside.
/// - Returns: text that is safe to print and says which bytes were there.
public func escapedForDisplay(_ bytes: some Collection<UInt8>) -> String {
    // Most names are printable ASCII: nothing to look at byte by byte.
    if bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) { return String(decoding: bytes, as: UTF8.self) }
    let bytes = Array(bytes)
    var shown = ""
    var index = 0
    while index < bytes.count {
        if let (scalar, length) = decodedScalar(bytes[index...]),
            !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        {
            shown.unicodeScalars.append(scalar)
            index += length
        } else {
            // A control character is escaped byte by byte, as a stray byte is.
            let length = decodedScalar(bytes[index...])?.length ?? 1
            for byte in bytes[index..<(index + length)] { shown += hexEscape(byte) }
            index += length
        }
    }
    return shown
}

private func hexEscape(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}

/// The scalar whose UTF-8 sequence starts `bytes`, and its length; nil when none starts there (a
/// stray continuation byte, a sequence cut short, an overlong form or a surrogate).
private func decodedScalar(_ bytes: ArraySlice<UInt8>) -> (Unicode.Scalar, length: Int)? {
    let lead = bytes.first!
    let length: Int
    let lowest: UInt32
    switch lead {
    case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
    case 0xC2...0xDF: (length, lowest) = (2, 0x80)
    case 0xE0...0xEF: (length, lowest) = (3, 0x800)
    case 0xF0...0xF4: (length, lowest) = (4, 0x10000)
    default: return nil
    }
    guard bytes.count >= length else { return nil }
    var value = UInt32(lead) & (0xFF >> (length + 1))
    for byte in bytes.dropFirst().prefix(length - 1) {
        guard byte & 0xC0 == 0x80 else { return nil }
        value = value << 6 | UInt32(byte & 0x3F)
    }
    guard value >= lowest, let scalar = Unicode.Scalar(value) else { return nil }
    return (scalar, length)
}
