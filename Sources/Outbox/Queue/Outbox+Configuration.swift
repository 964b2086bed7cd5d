import Foundation

extension Outbox {
    /// What an outbox takes from its surroundings: the operation types the app knows, the
    /// clock, the time zone, how to read the engine's answers, how to back off, and where upload
    /// progress goes. Tests replace the clock and the random source so that what depends on time
    /// is exact and nothing has to wait.
    public struct Configuration: Sendable {
        /// The operation types this build of the app queues, reads and sends, each with its
        /// versions and whether it is last-write-wins. Queuing any other type throws
        /// `.request(.unknownOperationType)`; a stored entry of any other type or version is unreadable
        /// (kept, counted, never sent). Photo captures (`OperationType.captureCreate`) by default.
        public var operationTypes: [OperationType]
        /// Whether a type not in `operationTypes` is known at every version and sent as it is:
        /// for a tool that relays operations without interpreting them, such as the `outbox`
        /// command. Leave it false in an app, so that what the app does not know is never sent.
        public var relaysUndeclaredTypes: Bool
        /// The current time; stamps new entries and stands in for a missing capture time.
        public var now: @Sendable () -> Date
        /// The device's time zone; its IANA identifier goes into each photo capture's intent.
        public var timeZone: TimeZone
        /// What each answer from the engine means for its entry.
        public var classifier: FailureClassifier
        /// When automatic retries happen and when they stop.
        public var backoff: Backoff
        /// A random number in 0..<1 for the backoff's jitter.
        public var randomUnit: @Sendable () -> Double
        /// Called as a transport reports bytes sent, from the transport's task (not the main actor).
        public var onProgress: (@Sendable (UploadProgress) -> Void)?
        /// Where the key of an encrypted outbox comes from (`KeyFile`, `KeychainKeyProvider`);
        /// nil for a plaintext one. A new store opened with a key is encrypted from its first
        /// entry on, and remembers it: every later open needs the same key. See docs/encryption.md.
        public var keyProvider: (any KeyProvider)?
        /// How long all the give-backs of one pass may take together
        /// (`giveBackAbandonedResources`). Tests lengthen it, so that what they check does not
        /// depend on how fast a loaded machine answers, or shorten it.
        var giveBackDeadline: Duration = .seconds(5)
        /// The unique part of each media file's name. Tests fix it to make a write collide.
        var makeFileToken: @Sendable () -> String = {
            String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
        }

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - operationTypes: The operation types the app knows; photo captures by default.
        ///   - relaysUndeclaredTypes: Whether other types are sent as they are; false by default.
        ///   - now: The clock; the system clock by default.
        ///   - timeZone: The device's time zone; `TimeZone.current` by default.
        ///   - classifier: What the engine's answers mean; the standard table by default.
        ///   - backoff: The retry policy.
        ///   - randomUnit: The jitter's random source; the system generator by default.
        ///   - onProgress: Receives upload progress; nil to ignore it.
        ///   - keyProvider: The key of an encrypted outbox; nil for a plaintext one.
        public init(
            operationTypes: [OperationType] = [.captureCreate], relaysUndeclaredTypes: Bool = false,
            now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current,
            classifier: FailureClassifier = FailureClassifier(), backoff: Backoff = Backoff(),
            randomUnit: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
            onProgress: (@Sendable (UploadProgress) -> Void)? = nil, keyProvider: (any KeyProvider)? = nil
        ) {
            self.operationTypes = operationTypes
            self.relaysUndeclaredTypes = relaysUndeclaredTypes
            self.now = now
            self.timeZone = timeZone
            self.classifier = classifier
            self.backoff = backoff
            self.randomUnit = randomUnit
            self.onProgress = onProgress
            self.keyProvider = keyProvider
        }
    }
}

extension Outbox.Configuration {
    /// The operation types as the store reads them.
    var catalog: OperationCatalog { OperationCatalog(operationTypes, relaysUndeclared: relaysUndeclaredTypes) }
}
