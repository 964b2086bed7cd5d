import Foundation

extension Array where Element == Double {
    /// The middle value (the mean of the two middle ones for an even count); nil when empty.
    var median: Double? { percentile(50) }

    /// The `p`th percentile with linear interpolation between ranks, as numpy's default does;
    /// nil when empty.
    func percentile(_ p: Double) -> Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let rank = p / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - Double(lower))
    }

    var mean: Double? { isEmpty ? nil : reduce(0, +) / Double(count) }
}

extension Duration {
    /// The duration in milliseconds, as a Double for statistics.
    var milliseconds: Double {
        Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15
    }
}
