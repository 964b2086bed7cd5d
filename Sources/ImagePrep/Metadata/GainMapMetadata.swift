#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a gain map's XMP says in Adobe's `hdrgm` namespace (Ultra HDR v1.0): how its samples
/// map to a boost in stops, and the display headroom it is for.
///
/// Each number is kept as the file wrote it, after checking that it is one: the upload's XMP
/// says exactly what the original's did, and never anything else the original's XMP held.
struct GainMapMetadata: Equatable, Sendable {
    /// One value, or three (red, green, blue) for a multichannel gain map.
    var gainMapMin: [String]
    var gainMapMax: [String]
    var gamma: [String]
    var offsetSDR: [String]
    var offsetHDR: [String]
    var hdrCapacityMin: String
    var hdrCapacityMax: String
    var baseRenditionIsHDR: Bool

    static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"
    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// A number as XMP writes one; longer text is no number a writer makes.
    private static let longestNumber = 32

    /// Whether `text` is a decimal number as XMP writes one (no hex, no "nan", no "inf").
    private static func isNumber(_ text: String) -> Bool {
        let allowed = Set("0123456789+-.eE".utf8)
        return !text.isEmpty && text.utf8.count <= longestNumber && text.utf8.allSatisfy(allowed.contains)
            && (Double(text)?.isFinite ?? false)
    }

    /// Reads the values from a gain map's XMP packet, with the defaults the format gives for
    /// those left out (GainMapMin 0, Gamma 1, both offsets 1/64, HDRCapacityMin 0).
    ///
    /// - Returns: the values, or why they cannot be carried: a version other than 1.0, a
    ///   GainMapMax or HDRCapacityMax missing, a value that is no number, or numbers that
    ///   contradict each other (a maximum below its minimum, a gamma that is not positive).
    static func read(xmp: [UInt8]) -> Result<GainMapMetadata, GainMapProblem> {
        guard XMPText.values(of: "hdrgm:Version", in: xmp) == ["1.0"] else {
            return .failure(.metadata("its hdrgm:Version is missing or not 1.0"))
        }
        func numbers(_ name: String, default fallback: String?) -> [String]? {
            let found = XMPText.values(of: "hdrgm:" + name, in: xmp)
            if found.isEmpty { return fallback.map { [$0] } }
            guard found.count == 1 || found.count == 3 else { return nil }
            guard found.allSatisfy(isNumber) else { return nil }
            return found
        }
        guard let gainMapMin = numbers("GainMapMin", default: "0"),
            let gainMapMax = numbers("GainMapMax", default: nil),
            let gamma = numbers("Gamma", default: "1"), let offsetSDR = numbers("OffsetSDR", default: "0.015625"),
            let offsetHDR = numbers("OffsetHDR", default: "0.015625"),
            let capacityMin = numbers("HDRCapacityMin", default: "0"), capacityMin.count == 1,
            let capacityMax = numbers("HDRCapacityMax", default: nil), capacityMax.count == 1
        else { return .failure(.metadata("a value of its hdrgm metadata is missing or not a number")) }
        let channels = [gainMapMin, gainMapMax, gamma, offsetSDR, offsetHDR].map(\.count).max()!
        func spread(_ values: [String]) -> [String] { values.count == channels ? values : values + values + values }
        let (low, high) = (spread(gainMapMin).map { Double($0)! }, spread(gainMapMax).map { Double($0)! })
        guard zip(low, high).allSatisfy({ $0 <= $1 }), spread(gamma).allSatisfy({ Double($0)! > 0 }),
            Double(capacityMin[0])! >= 0, Double(capacityMin[0])! <= Double(capacityMax[0])!
        else { return .failure(.metadata("its hdrgm values contradict each other")) }
        let base = XMPText.values(of: "hdrgm:BaseRenditionIsHDR", in: xmp)
        guard base.isEmpty || base == ["False"] || base == ["True"] else {
            return .failure(.metadata("its hdrgm:BaseRenditionIsHDR is neither True nor False"))
        }
        return .success(
            GainMapMetadata(
                gainMapMin: gainMapMin, gainMapMax: gainMapMax, gamma: gamma, offsetSDR: offsetSDR,
                offsetHDR: offsetHDR, hdrCapacityMin: capacityMin[0], hdrCapacityMax: capacityMax[0],
                baseRenditionIsHDR: base == ["True"]))
    }

    /// The gain map's XMP APP1: these values and nothing else.
    var segment: Data {
        var attributes = "hdrgm:Version=\"1.0\""
        var elements = ""
        for (name, values) in [
            ("GainMapMin", gainMapMin), ("GainMapMax", gainMapMax), ("Gamma", gamma), ("OffsetSDR", offsetSDR),
            ("OffsetHDR", offsetHDR),
        ] {
            if values.count == 1 {
                attributes += " hdrgm:\(name)=\"\(values[0])\""
            } else {
                elements +=
                    "<hdrgm:\(name)><rdf:Seq>" + values.map { "<rdf:li>\($0)</rdf:li>" }.joined()
                    + "</rdf:Seq></hdrgm:\(name)>"
            }
        }
        attributes += " hdrgm:HDRCapacityMin=\"\(hdrCapacityMin)\" hdrgm:HDRCapacityMax=\"\(hdrCapacityMax)\""
        attributes += " hdrgm:BaseRenditionIsHDR=\"\(baseRenditionIsHDR ? "True" : "False")\""
        let description =
            "<rdf:Description rdf:about=\"\" xmlns:hdrgm=\"\(Self.namespace)\" \(attributes)"
            + (elements.isEmpty ? "/>" : ">\(elements)</rdf:Description>")
        return XMPText.segment(description: description)
    }

    /// The primary's XMP APP1 of an Ultra HDR file: the hdrgm version, and the container
    /// directory that says the second image is the gain map and how long it is.
    static func primarySegment(gainMapLength: Int) -> Data {
        XMPText.segment(
            description:
                "<rdf:Description rdf:about=\"\" xmlns:Container=\"http://ns.google.com/photos/1.0/container/\""
                + " xmlns:Item=\"http://ns.google.com/photos/1.0/container/item/\" xmlns:hdrgm=\"\(namespace)\""
                + " hdrgm:Version=\"1.0\"><Container:Directory><rdf:Seq>"
                + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/></rdf:li>"
                + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\""
                + " Item:Length=\"\(gainMapLength)\"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description>")
    }
}

/// The little of XMP that Ultra HDR needs, read from the packet's bytes without an XML parser:
/// a property's value, written as an attribute (`hdrgm:Gamma="1"`), as an element
/// (`<hdrgm:Gamma>1</hdrgm:Gamma>`) or as an element holding an `rdf:Seq` of `rdf:li`.
enum XMPText {
    /// The values of `name`: one for an attribute or a simple element, the items of a sequence,
    /// none when it is not there. Only the first occurrence counts, and at most 16 items.
    static func values(of name: String, in xmp: [UInt8]) -> [String] {
        let key = Array(name.utf8)
        for quote in [UInt8(ascii: "\""), UInt8(ascii: "'")] {
            if let found = firstRange(of: key + [UInt8(ascii: "=")] + [quote], in: xmp[...]),
                let end = xmp[found.upperBound...].firstIndex(of: quote)
            {
                return [text(xmp[found.upperBound..<end])]
            }
        }
        guard let open = firstRange(of: Array("<".utf8) + key + Array(">".utf8), in: xmp[...]),
            let close = firstRange(of: Array("</".utf8) + key + Array(">".utf8), in: xmp[open.upperBound...])
        else { return [] }
        let content = Array(xmp[open.upperBound..<close.lowerBound])
        var items: [String] = []
        var rest = content[...]
        while items.count < 16, let start = firstRange(of: Array("<rdf:li>".utf8), in: rest),
            let end = firstRange(of: Array("</rdf:li>".utf8), in: rest[start.upperBound...])
        {
            items.append(text(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return items.isEmpty ? [text(content[...])] : items
    }

    /// Where each `Semantic` of a container directory's items is, in order: the index of
    /// "GainMap" is the gain map's MPF entry.
    static func itemSemantics(in xmp: [UInt8]) -> [String] {
        var semantics: [String] = []
        var rest = xmp[...]
        let key = Array(":Semantic=\"".utf8)
        while semantics.count < MPFIndex.maximumEntries, let found = firstRange(of: key, in: rest),
            let end = rest[found.upperBound...].firstIndex(of: UInt8(ascii: "\""))
        {
            semantics.append(text(rest[found.upperBound..<end]))
            rest = rest[(end + 1)...]
        }
        return semantics
    }

    /// Where `needle` first occurs in `haystack`, in the haystack's indices: a plain byte search
    /// of a few instructions a byte. Foundation's generic `firstRange(of:)`, which this module
    /// cannot specialise, took about 40 a byte: 1 % of the whole job of a camera photo whose XMP
    /// was looked through for `hdrgm`.
    static func firstRange(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Range<Int>? {
        guard let first = needle.first else { return haystack.startIndex..<haystack.startIndex }
        guard needle.count <= haystack.count else { return nil }
        return haystack.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { needle in
                var index = 0
                while index <= bytes.count - needle.count {
                    if bytes[index] == first, (1..<needle.count).allSatisfy({ bytes[index + $0] == needle[$0] }) {
                        return (haystack.startIndex + index)..<(haystack.startIndex + index + needle.count)
                    }
                    index += 1
                }
                return nil
            }
        }
    }

    /// The XMP APP1 segment holding one `rdf:Description`.
    static func segment(description: String) -> Data {
        let packet =
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + description + "</rdf:RDF></x:xmpmeta>"
        let payload = GainMapMetadata.xmpSignature + Array(packet.utf8)
        precondition(payload.count + 2 <= 0xFFFF, "our own XMP is short")
        return Data(
            [0xFF, JPEGSegment.app1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload)
    }

    /// Text from the file, trimmed; bytes that are not UTF-8 become U+FFFD, so no value with
    /// them is ever a number or a name we know.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let blank: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        let start = bytes.firstIndex { !blank.contains($0) } ?? bytes.endIndex
        let end = bytes[start...].lastIndex { !blank.contains($0) }.map { $0 + 1 } ?? start
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
