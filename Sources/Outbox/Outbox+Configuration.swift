import Foundation

extension Outbox {
    /// What an outbox takes from its surroundings: the clock and the time zone. Tests replace them
    /// so that what depends on time is exact and nothing has to wait.
    public struct Configuration: Sendable {
        /// The current time; stamps new entries and stands in for a missing capture time.
        public var now: @Sendable () -> Date
        /// The device's time zone; its IANA identifier goes into each capture's intent.
        public var timeZone: TimeZone
        /// The unique part of each media file's name. Tests fix it to make a write collide.
        var makeFileToken: @Sendable () -> String = {
            String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
        }

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - now: The clock; the system clock by default.
        ///   - timeZone: The device's time zone; `TimeZone.current` by default.
        public init(now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current) {
            self.now = now
            self.timeZone = timeZone
        }
    }
}
