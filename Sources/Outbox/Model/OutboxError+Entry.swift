extension OutboxError {
    /// The entry cannot be found, read, sent or changed as asked.
    public enum Entry: Equatable, Sendable, CustomStringConvertible {
        /// The store holds no entry with this id.
        case notFound(id: String)
        /// Only a synced entry can be retired; retiring any other would lose the capture.
        case notSynced(id: String, state: OutboxEntry.State)
        /// The entry's record cannot be read by this version, so it cannot be sent or changed (only discarded).
        case unreadable(id: String, reason: String)
        /// The entry waits behind an earlier one of its entity, which must reach the engine (or be
        /// discarded) first.
        case blockedBehind(id: String, blockedBy: String, entity: String)
        /// The entry's type may not be sent on the network the device is on (`OperationType.network`),
        /// so "send now" cannot send it; it goes once the device is on one it allows.
        case waitsForNetwork(id: String, type: String, network: NetworkPath, awaited: String)

        /// The error's own sentence.
        public var description: String {
            switch self {
            case .notFound(let id):
                "The outbox holds no entry with the id '\(id)'."
            case .notSynced(let id, let state):
                "The capture '\(id)' cannot be retired because the engine does not have it yet: it is \(state.rawValue)."
            case .unreadable(let id, let reason):
                "The entry '\(id)' cannot be read by this version of the app: \(reason)."
            case .blockedBehind(let id, let blockedBy, let entity):
                "The entry '\(id)' waits behind '\(blockedBy)', an earlier one of '\(entity)':"
                    + " send or discard that one first."
            case .waitsForNetwork(let id, let type, let network, let awaited):
                "The entry '\(id)' waits for \(awaited): operations '\(type)' are not sent on a"
                    + " \(network) network, and the device is on one. It goes once it is on \(awaited)."
            }
        }
    }
}
