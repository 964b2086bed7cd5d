/// The version of the wire contract (docs/engine-protocol.md) that `HTTPTransport` speaks.
///
/// The contract is checked by tools outside this project, so each change that an engine or a
/// client written to an earlier version would break raises it, and the document and
/// CHANGELOG.md say what changed.
public enum EngineProtocol {
    /// Version 2: the outbox requires of every record answer what only the engine adds
    /// (`received_at`, and each upload's `byte_count`). Version 1 was the contract alone.
    public static let version = 2

    /// The section of docs/engine-protocol.md that says what an engine adds to a record.
    static let confirmationSection = "What only the engine adds"
}
