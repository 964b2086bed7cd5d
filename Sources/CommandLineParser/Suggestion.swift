/// The known word a mistyped one was most likely meant to be, for "Did you mean ...?".
public enum Suggestion {
    /// The candidate nearest to `typed`: one at most two edits away (a letter missing, extra,
    /// changed or two swapped), or else the only candidate that `typed` is the start of.
    ///
    /// - Returns: nil when nothing is near enough to be worth suggesting.
    public static func nearest(to typed: String, among candidates: [String]) -> String? {
        let typed = Array(typed.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= min(2, max(1, typed.count / 3)), distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        if let best { return best.name }
        let extended = candidates.filter { typed.count >= 2 && $0.lowercased().hasPrefix(String(typed)) }
        return extended.count == 1 ? extended[0] : nil
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    /// neighbours each count one.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
