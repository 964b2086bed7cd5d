/// An error of the app's own that the outbox passes on inside an `OutboxError` (what an app's
/// `KeyProvider` threw): kept whole, to match on, and compared by its description, so that
/// `OutboxError` stays `Equatable`.
public struct UnderlyingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error as it was thrown.
    public let error: any Error

    /// Wraps `error`.
    ///
    /// - Parameter error: The app's error.
    public init(_ error: any Error) { self.error = error }

    /// The error's own description (`String(describing:)`).
    public var description: String { String(describing: error) }

    /// Whether both describe themselves alike, with the same type.
    public static func == (lhs: UnderlyingError, rhs: UnderlyingError) -> Bool {
        type(of: lhs.error) == type(of: rhs.error) && lhs.description == rhs.description
    }
}
