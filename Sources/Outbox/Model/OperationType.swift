/// One kind of operation an app queues, as this build of the app knows it: its name, the
/// versions of its payload it can read and send, and whether only the last one per entity matters.
///
/// An outbox knows the types in `Outbox.Configuration.operationTypes`. An entry of any other
/// type, or of a version outside its range (written by a newer build of the app, say), is
/// unreadable: listed and counted, kept on the device, never sent, so that a build which does not
/// know how to send it cannot send it wrongly.
public struct OperationType: Sendable, Hashable {
    /// The type's name, for example "note.update": 1 to 64 letters, digits, '.', '-' or '_',
    /// starting with a letter.
    public var name: String
    /// The payload versions this build reads and sends.
    public var versions: ClosedRange<Int>
    /// Whether a newer operation of this type replaces an older one of the same entity that was
    /// never sent (see `Outbox.enqueue(_:)` for when it does).
    public var isLastWriteWins: Bool
    /// The networks its entries may be sent on; any by default. An entry that waits for its
    /// network stays queued, uses up no retry, and holds back the later entries of its entity.
    public var network: NetworkRequirement

    /// Declares a type.
    ///
    /// - Parameters:
    ///   - name: The type's name.
    ///   - versions: The versions this build knows; version 1 by default.
    ///   - isLastWriteWins: Whether only the last unsent operation of an entity matters, as for
    ///     "set the note's text"; false by default, as for "append a set to the log".
    ///   - network: The networks it may be sent on; any by default.
    public init(
        _ name: String, versions: ClosedRange<Int> = 1...1, isLastWriteWins: Bool = false,
        network: NetworkRequirement = .any
    ) {
        self.name = name
        self.versions = versions
        self.isLastWriteWins = isLastWriteWins
        self.network = network
    }

    /// The same type, sent only on `network`: `.captureCreate.sent(on: .unmetered)` for photos
    /// on Wi-Fi only.
    public func sent(on network: NetworkRequirement) -> OperationType {
        var type = self
        type.network = network
        return type
    }

    /// `capture.create` version 1: a photo capture, which `HTTPTransport` sends as the contract's
    /// `POST /v1/captures`. The PhotoCapture library makes them (`Outbox.commit`). It may go on
    /// any network; `.captureCreate.sent(on: .unmetered)` keeps photos for Wi-Fi.
    public static let captureCreate = OperationType("capture.create")

    /// Whether `name` can name an operation type.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= 64, isLetter(first) else { return false }
        return bytes.allSatisfy {
            isLetter($0) || isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}

/// The operation types one outbox knows, from its configuration: what may be queued, what a
/// stored entry may be to be read and sent, and which types compact.
struct OperationCatalog: Sendable {
    private let declared: [String: OperationType]
    /// Whether a type that is not declared is known at every version (for a relay).
    private let relaysUndeclared: Bool

    /// The networks an entry of type `name` may be sent on: its declared type's, or any for a
    /// type this outbox does not know (which it never sends anyway, or relays).
    func network(ofType name: String) -> NetworkRequirement { declared[name]?.network ?? .any }

    /// What `entry` waits for while the device is on `network`: its type's requirement when the
    /// entry is queued and that network is not one of those it allows; nil otherwise.
    func awaitedNetwork(of entry: OutboxEntry, on network: NetworkPath) -> NetworkRequirement? {
        guard entry.state == .queued else { return nil }
        let requirement = self.network(ofType: entry.type)
        return requirement.allows(network) ? nil : requirement
    }

    init(_ types: [OperationType], relaysUndeclared: Bool) {
        declared = Dictionary(types.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.relaysUndeclared = relaysUndeclared
    }

    /// The type as this outbox knows it; nil when it does not.
    func type(named name: String) -> OperationType? {
        if let type = declared[name] { return type }
        return relaysUndeclared ? OperationType(name, versions: 1...Int.max) : nil
    }

    /// Why an entry of this type and version cannot be read, or nil when it can; in words that
    /// finish "its …", quoting the type only as untrusted text.
    func problem(type name: String, version: Int) -> String? {
        let shown = UntrustedText.quoted(name, limit: 64)
        guard let type = type(named: name) else { return "its operation '\(shown)' is not one this app knows" }
        guard type.versions.contains(version) else {
            let known =
                type.versions.lowerBound == type.versions.upperBound
                ? "version \(type.versions.lowerBound)"
                : "versions \(type.versions.lowerBound) to \(type.versions.upperBound)"
            return "its operation '\(shown)' is version \(version), and this app knows \(known)"
        }
        return nil
    }
}
