/// The values of the XMP properties that say where a gain map is and what it means, found in a
/// photo's bytes for the fuzz test's mutators (`JPEGMutation`, `HEIFMutation`), and what to write
/// over one: each is overwritten in place, so that no segment or item changes its length.
enum XMPValues {
    /// The properties a gain map's reading depends on: Ultra HDR's, Apple's, the container
    /// directory's and Extended XMP's.
    static let names = [
        "hdrgm:Version", "hdrgm:GainMapMin", "hdrgm:GainMapMax", "hdrgm:Gamma", "hdrgm:OffsetSDR", "hdrgm:OffsetHDR",
        "hdrgm:HDRCapacityMin", "hdrgm:HDRCapacityMax", "hdrgm:BaseRenditionIsHDR",
        "HDRGainMap:HDRGainMapVersion", "HDRGainMap:HDRGainMapHeadroom", "apdi:AuxiliaryImageType",
        "Item:Semantic", "Item:Length", "xmpNote:HasExtendedXMP",
    ].map { Array($0.utf8) }

    /// Where each value of those properties lies in `bytes`, within `ranges` (the XMP the file
    /// holds): an attribute's text between its quotes, or an element's up to its closing tag.
    static func ranges(in bytes: [UInt8], within ranges: [Range<Int>]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        for range in ranges {
            let text = bytes[range]
            for name in names {
                var rest = text[...]
                while found.count < 256, let at = rest.firstRange(of: name) {
                    rest = rest[at.upperBound...]
                    if let value = value(after: at.upperBound, in: text) { found.append(value) }
                }
            }
        }
        return found
    }

    /// The value that follows a property's name at `index`: `="…"` or `>…<`.
    private static func value(after index: Int, in text: ArraySlice<UInt8>) -> Range<Int>? {
        guard index + 1 < text.endIndex else { return nil }
        let (open, close): (Int, UInt8)
        if text[index] == UInt8(ascii: "="), [UInt8(ascii: "\""), UInt8(ascii: "'")].contains(text[index + 1]) {
            (open, close) = (index + 2, text[index + 1])
        } else if text[index] == UInt8(ascii: ">") {
            (open, close) = (index + 1, UInt8(ascii: "<"))
        } else {
            return nil
        }
        guard open <= text.endIndex, let end = text[open...].prefix(200).firstIndex(of: close) else { return nil }
        return open..<end
    }

    /// What a value is overwritten with: numbers at the edges of what is read (none, negative,
    /// huge, not finite), versions, Apple's and Samsung's types and other text, fitted to
    /// `length` bytes (padded with spaces, which a reader trims, or cut).
    static func replacement(length: Int, using random: inout SplitMix64) -> [UInt8] {
        let candidates = [
            "", "0", "-1", "1", "1.0", "2.0", "1e308", "-1e308", "nan", "inf", "0x10", "65536", "131072", "4.000000",
            "0.000001", "99999999999999999999", "True", "False", "GainMap", "Primary",
            "urn:com:apple:photo:2020:aux:hdrgainmap", "urn:com:samsung:photo:2024:aux:hdrgainmap",
            "0123456789ABCDEF0123456789ABCDEF", "\u{FF}\u{FE}",
        ]
        var value = Array(candidates.randomElement(using: &random)!.utf8)
        if Bool.random(using: &random), !value.isEmpty {
            value[Int.random(in: 0..<value.count, using: &random)] ^= 0x20
        }
        return Array((value + [UInt8](repeating: 0x20, count: max(0, length - value.count))).prefix(length))
    }
}
