import Foundation

extension Outbox {
    /// What an outbox takes from its surroundings: the clock, the time zone, how to read the
    /// engine's answers, and where upload progress goes. Tests replace the clock so that what
    /// depends on time is exact and nothing has to wait.
    public struct Configuration: Sendable {
        /// The current time; stamps new entries and stands in for a missing capture time.
        public var now: @Sendable () -> Date
        /// The device's time zone; its IANA identifier goes into each capture's intent.
        public var timeZone: TimeZone
        /// What each answer from the engine means for its entry.
        public var classifier: FailureClassifier
        /// Called as a transport reports bytes sent, from the transport's task (not the main actor).
        public var onProgress: (@Sendable (UploadProgress) -> Void)?
        /// The unique part of each media file's name. Tests fix it to make a write collide.
        var makeFileToken: @Sendable () -> String = {
            String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
        }

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - now: The clock; the system clock by default.
        ///   - timeZone: The device's time zone; `TimeZone.current` by default.
        ///   - classifier: What the engine's answers mean; the standard table by default.
        ///   - onProgress: Receives upload progress; nil to ignore it.
        public init(
            now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current,
            classifier: FailureClassifier = FailureClassifier(),
            onProgress: (@Sendable (UploadProgress) -> Void)? = nil
        ) {
            self.now = now
            self.timeZone = timeZone
            self.classifier = classifier
            self.onProgress = onProgress
        }
    }
}
