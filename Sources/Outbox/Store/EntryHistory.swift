import Foundation

/// An entry's history (`history` column): one line for each thing the outbox did to the entry's
/// stored values that nobody asked for, such as clearing a value it refused to read. Each line is
/// the moment in UTC and a sentence of the outbox's own, never a value of the entry, so it stays
/// plaintext in an encrypted store. Read back as untrusted like any stored value: at most
/// `largestStored` bytes of text, each line quoted (`UntrustedText`), the last `mostLines` kept.
enum EntryHistory {
    /// The most lines kept; older ones go first.
    static let mostLines = 20
    /// The most characters of one line shown.
    static let longestLine = 300
    /// The most bytes the column may hold; a larger value is refused (and cleared).
    static let largestStored = 8 * 1024

    /// The lines of a stored history, oldest first; none for a value that is not text or is too large.
    static func lines(_ stored: String?) -> [String] {
        guard let stored, stored.utf8.count <= largestStored else { return [] }
        let lines = stored.split(separator: "\n").map { UntrustedText.quoted(String($0), limit: longestLine) }
        return Array(lines.filter { !$0.isEmpty }.suffix(mostLines))
    }

    /// The column's value with `sentences` added, each as a line stamped `moment`.
    static func adding(_ sentences: [String], at moment: Date, to stored: String?) -> String {
        let stamp = moment.formatted(.iso8601)
        let added = sentences.map { "\(stamp) \(UntrustedText.quoted($0, limit: longestLine))" }
        return (lines(stored) + added).suffix(mostLines).joined(separator: "\n")
    }
}
