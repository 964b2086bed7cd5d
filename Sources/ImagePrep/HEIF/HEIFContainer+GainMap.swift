/// What a HEIF file says about its HDR gain map besides the image, read by our own walk: the
/// ISO 21496-1 metadata of its `tmap` item, the XMP items on an image, and the signs of a gain map
/// that is not read.
extension HEIFContainer {
    /// More XMP items on one image than this are not looked at (a phone writes one).
    static let maximumXMPItems = 4
    /// An XMP packet larger than this is no gain map's (Apple's and Samsung's are under 3 KB).
    static let maximumXMPSize = 1 << 20

    /// The ISO 21496-1 metadata of the primary's tone-mapped image (`toneMapItem`), read by the
    /// same bounded reader as a JPEG's APP2 block; nil when there is none.
    func toneMapMetadata() -> Result<ISOGainMapMetadata.ToneMap, GainMapProblem>? {
        guard let id = toneMapItem, let item = items[id] else { return nil }
        let data: [UInt8]
        do {
            data = try smallData(of: item, named: "tone map ('tmap')")
        } catch {
            return .failure(.metadata(error.clause))
        }
        return ISOGainMapMetadata.read(toneMapItem: data)
    }

    /// The XMP packets (`mime` items) that describe `id` (`cdsc`), each whole in the file, not
    /// encoded (a deflated packet is not inflated here) and at most `maximumXMPSize`, at most
    /// `maximumXMPItems` of them; the others are left out.
    func xmpPackets(describing id: ItemID) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        for reference in references where reference.type == .cdsc && reference.to.contains(id) {
            guard packets.count < Self.maximumXMPItems else { break }
            guard let item = items[reference.from], item.type == .mime, !item.isTruncated, !item.isEncoded,
                item.declaredLength <= Self.maximumXMPSize
            else { continue }
            packets.append(item.extents.flatMap { Array(bytes[$0]) })
        }
        return packets
    }

    /// Why the file seems to hold an HDR gain map that `gainMapItem` does not find; nil when
    /// nothing says so. An auxiliary image of the primary whose XMP says it is a gain map
    /// (Apple's `HDRGainMapVersion` or `hdrgm:Version`) but whose type is not one read here, or
    /// a primary whose XMP says it is one with a gain map (`hdrgm:Version`).
    func unreadGainMapSign() -> GainMapProblem? {
        guard let primary, gainMapItem == nil else { return nil }
        for reference in references where reference.type == .auxl && reference.to.contains(primary) {
            let saysGainMap = xmpPackets(describing: reference.from).contains { packet in
                !XMPText.values(of: "HDRGainMap:HDRGainMapVersion", in: packet).isEmpty
                    || !XMPText.values(of: "hdrgm:Version", in: packet).isEmpty
            }
            if saysGainMap { return .notGainMapType }
        }
        let saysUltraHDR = xmpPackets(describing: primary).contains { packet in
            !XMPText.values(of: "hdrgm:Version", in: packet).isEmpty
        }
        return saysUltraHDR ? .noGainMapImage : nil
    }
}
