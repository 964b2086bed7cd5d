/// The network the device is on, as far as sending is concerned: whether it costs the user
/// (a cellular network, a phone's hotspot) and whether the user asked it to spare data (Low Data
/// Mode). Apple's `NWPath.isExpensive` and `isConstrained` say the same; on Linux the app, or
/// `outbox drain --network`, says it (`Outbox.connectivityChanged(isReachable:network:)`).
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible {
    /// Whether it is metered: a cellular network or a phone's hotspot.
    public var isExpensive: Bool
    /// Whether the user turned on Low Data Mode for it.
    public var isConstrained: Bool

    /// Describes a network.
    public init(isExpensive: Bool, isConstrained: Bool) {
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    /// Wi-Fi or a wire, without Low Data Mode: what an outbox assumes until told otherwise.
    public static let unmetered = NetworkPath(isExpensive: false, isConstrained: false)
    /// A cellular network or a hotspot.
    public static let metered = NetworkPath(isExpensive: true, isConstrained: false)

    /// "unmetered", "metered", "constrained" or "metered, constrained", as `--network` takes them.
    public var description: String {
        switch (isExpensive, isConstrained) {
        case (false, false): "unmetered"
        case (true, false): "metered"
        case (false, true): "constrained"
        case (true, true): "metered, constrained"
        }
    }
}

/// The networks one operation type may be sent on (`OperationType.network`): for example photo
/// captures only on Wi-Fi, notes on any network. An entry whose network is not there waits,
/// queued, shown as `EntryStatus.waitingForNetwork`: it is not sent, uses up no retry, and the
/// later entries of its entity wait behind it.
public struct NetworkRequirement: Sendable, Hashable {
    /// Whether it may go over a metered network (cellular, a hotspot).
    public var allowsExpensive: Bool
    /// Whether it may go over a network in Low Data Mode.
    public var allowsConstrained: Bool

    /// Declares what an operation type may use.
    public init(allowsExpensive: Bool, allowsConstrained: Bool) {
        self.allowsExpensive = allowsExpensive
        self.allowsConstrained = allowsConstrained
    }

    /// Any network: the default.
    public static let any = NetworkRequirement(allowsExpensive: true, allowsConstrained: true)
    /// Only a network that is neither metered nor in Low Data Mode: Wi-Fi, in a person's words.
    public static let unmetered = NetworkRequirement(allowsExpensive: false, allowsConstrained: false)

    /// Whether an operation with this requirement may be sent over `path`.
    public func allows(_ path: NetworkPath) -> Bool {
        (allowsExpensive || !path.isExpensive) && (allowsConstrained || !path.isConstrained)
    }

    /// What an entry waits for, in a person's words: "Wi-Fi" when it may not go over a metered
    /// network, "a network outside Low Data Mode" when only that is refused.
    public var awaitedNetwork: String { allowsExpensive ? "a network outside Low Data Mode" : "Wi-Fi" }
}
