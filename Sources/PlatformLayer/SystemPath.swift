/// A path as the file calls take it: a `String`, or prep-photo's byte path, whose bytes need
/// not be UTF-8 (a name from an old camera card); `description` is how a `SystemError` names it.
package protocol SystemPath: CustomStringConvertible {
    /// Runs `body` with the path as a NUL-terminated C string.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result
}

extension String: SystemPath {}
