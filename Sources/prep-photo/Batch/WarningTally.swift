/// Warnings that many photos share, printed once each with a count at the end of the batch
/// instead of once per photo.
struct WarningTally {
    /// Past this many different messages, further ones are printed as they come, so that a
    /// batch of photos with all different warnings does not hold them all.
    static let limit = 100

    private var order: [String] = []
    private var seen: [String: (count: Int, first: BytePath)] = [:]

    /// Counts `message`; false when it was not kept, and is to be printed now.
    mutating func add(_ message: String, from input: BytePath) -> Bool {
        if let entry = seen[message] {
            seen[message] = (entry.count + 1, entry.first)
            return true
        }
        guard order.count < Self.limit else { return false }
        order.append(message)
        seen[message] = (1, input)
        return true
    }

    /// "prep-photo: warning: 'a.jpg' and 11 more photos: MESSAGE", in the order first seen.
    var lines: [String] {
        order.map { message in
            let (count, first) = seen[message]!
            let photos = count == 1 ? "'\(first)'" : "'\(first)' and \(count - 1) more photo\(count == 2 ? "" : "s")"
            return "prep-photo: warning: \(photos): \(message)\n"
        }
    }
}
