import Foundation

/// The rules every value read back from the outbox's own database and folder passes, in one
/// place, for every kind of record the store keeps.
///
/// A store can be old, corrupt or planted (copied in from elsewhere, edited by hand), so what it
/// says is input like any other: a count must not trap when one is added to it, a time must not
/// schedule a retry for the year 506713, a file name must not reach outside the media folder, and
/// a text shown in a listing must not drive the terminal it is shown on.
enum StoredValue {
    /// The latest moment a stored time may name: 9999-12-31T23:59:59Z. Later ones are clamped to it.
    static let latestMoment: TimeInterval = 253_402_300_799
    /// The positions an upload may have in its capture: the engine's URLs take at most six digits.
    static let mediaIndices = 0...999_999
    /// The longest media file name: what every common file system takes.
    static let longestFileName = 255
    /// The most bytes a media list column may hold (a list of a few hundred names is far less).
    static let largestMediaList = 64 * 1024
    /// The most bytes an intent may hold: a payload of `OutboxOperation.largestPayload` bytes
    /// escaped as a JSON string (every quote doubles), and its attachments' descriptors.
    static let largestIntent = 4 * 1024 * 1024
    /// The most bytes an upload copy may have: the engine takes no larger one.
    static let largestUpload = 64 * 1024 * 1024
    /// How many characters of a stored error a listing shows.
    static let longestShownError = 1000

    /// A stored count as a number that adding one to can never trap: negative and missing ones
    /// read as 0.
    static func count(_ stored: Int64?) -> Int { max(0, Int(clamping: stored ?? 0)) }

    /// A stored moment (seconds since 1970), clamped to 1970...9999; nil when missing or not a number.
    static func moment(_ stored: Double?) -> Date? {
        guard let stored, stored.isFinite else { return nil }
        return Date(timeIntervalSince1970: min(max(stored, 0), latestMoment))
    }

    /// A stored text for showing: one line, bounded, without control characters.
    static func shown(_ stored: String?) -> String? {
        stored.map { UntrustedText.quoted($0, limit: longestShownError) }
    }

    /// Whether `name` is a plain file name that stays inside the folder it is looked up in: 1 to
    /// 255 bytes of letters, digits, '.', '-' and '_', not starting with '.' (so never "." or a
    /// hidden file) and never holding "..". It cannot hold '/' or NUL, so it names no other folder.
    static func isPlainFileName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= longestFileName, bytes.first != UInt8(ascii: "."),
            !name.contains("..")
        else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }

    /// A column's bytes, or why they are too many to read; nil when the column is NULL.
    static func bytes(_ stored: Data?, atMost limit: Int, column: String) -> Result<Data?, RecordProblem> {
        guard let stored, stored.count > limit else { return .success(stored) }
        return .failure(RecordProblem("its \(column) is larger than \(limit / 1024) KiB"))
    }
}

extension Int {
    /// One more, or `Int.max` when there is no more: a stored count may already be at the top.
    var incrementedSaturating: Int { self == .max ? .max : self + 1 }
}
