import Foundation

/// When automatic retries happen, and when they stop.
///
/// After the n-th transient failure in a row the entry waits `initialDelay × multiplierⁿ⁻¹`,
/// capped at `maximumDelay`, with "equal jitter": a random point in the upper half of that delay,
/// so that many phones coming back online together do not hit the engine in step, and no wait is
/// shorter than half the nominal one. A `Retry-After` from the engine is honored as a floor, up
/// to `retryAfterCeiling`: a server (or something posing as one) must not be able to park the
/// queue for years. After `automaticRetryLimit` retries the entry waits for
/// `Outbox.sendNow(id:using:)`.
public struct Backoff: Sendable, Hashable {
    /// The nominal wait after the first transient failure, in seconds.
    public var initialDelay: TimeInterval
    /// How much each further failure multiplies the nominal wait.
    public var multiplier: Double
    /// The longest nominal wait, in seconds (a `Retry-After` may ask for longer and is honored).
    public var maximumDelay: TimeInterval
    /// How many automatic retries follow the first failed send before the entry waits for the user.
    public var automaticRetryLimit: Int
    /// The longest wait a `Retry-After` may ask for, in seconds; longer ones are cut to it.
    public var retryAfterCeiling: TimeInterval

    /// The longest an entry can have to wait after one failure, in seconds: a stored retry time
    /// further away than this is not to be believed, and is brought forward to it.
    public var longestWait: TimeInterval { max(maximumDelay, retryAfterCeiling) }

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - initialDelay: The nominal wait after the first failure, in seconds; 2 by default.
    ///   - multiplier: The growth per failure; 2 by default.
    ///   - maximumDelay: The cap on the nominal wait, in seconds; 15 minutes by default.
    ///   - automaticRetryLimit: Automatic retries before waiting for the user; 8 by default
    ///     (about half an hour of trying with the other defaults).
    ///   - retryAfterCeiling: The longest `Retry-After` honored, in seconds; 1 hour by default.
    public init(
        initialDelay: TimeInterval = 2, multiplier: Double = 2, maximumDelay: TimeInterval = 15 * 60,
        automaticRetryLimit: Int = 8, retryAfterCeiling: TimeInterval = 60 * 60
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.automaticRetryLimit = automaticRetryLimit
        self.retryAfterCeiling = retryAfterCeiling
    }

    /// The wait after the `failures`-th transient failure in a row.
    ///
    /// - Parameters:
    ///   - failures: How many transient failures in a row, from 1.
    ///   - retryAfter: What the engine's `Retry-After` asked for, in seconds, if anything.
    ///   - randomUnit: A random number in 0..<1 (injected, so that tests are exact).
    /// - Returns: The wait in seconds.
    public func delay(afterFailures failures: Int, retryAfter: TimeInterval?, randomUnit: Double) -> TimeInterval {
        let nominal = min(maximumDelay, initialDelay * pow(multiplier, Double(max(0, failures - 1))))
        let jittered = nominal / 2 + nominal / 2 * min(max(randomUnit, 0), 1)
        let asked = retryAfter.map { $0.isFinite ? min(max($0, 0), retryAfterCeiling) : 0 } ?? 0
        return max(jittered, asked)
    }

    /// The wait a `Retry-After` header asks for: delta-seconds (`120`) or an HTTP date
    /// (`Wed, 21 Oct 2015 07:28:00 GMT`, measured from `now`). Any number of digits is read (a
    /// huge one is simply long, and `delay` cuts it to the ceiling); a negative number or
    /// anything else is no value at all.
    ///
    /// - Parameters:
    ///   - header: The header's value.
    ///   - now: The current time.
    /// - Returns: The wait in seconds (0 for a date in the past), or nil when the value is neither form.
    public static func retryAfterSeconds(_ header: String, now: Date) -> TimeInterval? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty, value.utf8.count <= 64 else { return nil }
        if value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return TimeInterval(value)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
