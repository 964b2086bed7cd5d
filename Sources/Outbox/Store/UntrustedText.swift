/// Text from outside (an engine's answer, a value read back from the store) made fit to quote in
/// an error, a listing or a terminal: one short line, with no control characters and no terminal
/// escape sequences, so that a hostile server or a planted record can neither flood the UI nor
/// move the cursor, recolour the terminal or set its title.
enum UntrustedText {
    /// How many characters a quote keeps by default.
    static let defaultLimit = 200

    /// `text` as one line of at most `limit` characters (the last one "…" when it was cut), with
    /// escape sequences (CSI, OSC, DCS and the rest) and other control characters removed,
    /// bidirectional overrides removed (they reorder what a reader sees), and every run of white
    /// space, line breaks included, turned into one space.
    static func quoted(_ text: String, limit: Int = defaultLimit) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        var pendingSpace = false
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:
                skipEscapeSequence(after: &scalars)
                continue
            case 0x9B:  // C1 CSI
                skipControlSequence(&scalars)
                continue
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:  // C1 DCS, SOS, OSC, PM, APC
                skipString(&scalars)
                continue
            case 0x09, 0x0A, 0x0D, 0x20, 0x85, 0xA0, 0x2028, 0x2029:
                pendingSpace = count > 0
                continue
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                continue
            default:
                break
            }
            if pendingSpace {
                kept.append(" ")
                count += 1
                pendingSpace = false
            }
            kept.append(scalar)
            count += 1
            // One past the limit is enough to know that it must be cut.
            if count > limit { break }
        }
        let line = String(kept)
        guard line.count > limit else { return line }
        return String(line.prefix(max(0, limit - 1))) + "…"
    }

    /// Skips what follows an ESC: a control sequence (`ESC [`), a string (`ESC ]`, `ESC P`,
    /// `ESC X`, `ESC ^`, `ESC _`) up to its terminator, or the one character of a short escape.
    private static func skipEscapeSequence(after scalars: inout String.UnicodeScalarView.Iterator) {
        guard let introducer = scalars.next() else { return }
        switch introducer {
        case "[": skipControlSequence(&scalars)
        case "]", "P", "X", "^", "_": skipString(&scalars)
        default: break
        }
    }

    /// Skips parameter and intermediate bytes up to and including the final byte (0x40...0x7E).
    private static func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if (0x40...0x7E).contains(scalar.value) { return }
        }
    }

    /// Skips a string up to BEL, ST (`ESC \` or 0x9C), or the end.
    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x07, 0x9C: return
            case 0x1B:
                _ = scalars.next()
                return
            default: continue
            }
        }
    }
}
