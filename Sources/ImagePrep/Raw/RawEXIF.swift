/// A camera raw's EXIF as the block a JPEG's APP1 carries (`Exif\0\0` and a TIFF block), from
/// wherever its format keeps it, so that the upload of a raw LibRaw renders or takes a preview
/// from carries the camera's clock, GPS and orientation as a TIFF's or a DNG's does:
///
/// - a TIFF-based raw (DNG, CR2, NEF, ARW...), an ORF or an RW2: IFD0's camera tags and its Exif
///   and GPS IFDs, rebuilt by `TIFFEXIFBlock` (ORF and RW2 are TIFF with another version number);
/// - a CR3: the TIFF blocks in the `CMT1` (IFD0), `CMT2` (Exif IFD) and `CMT4` (GPS IFD) boxes of
///   Canon's `uuid` box in `moov`, rebuilt the same way;
/// - a RAF: its JPEG preview's own APP1, as the camera wrote it.
enum RawEXIF {
    /// Canon's `uuid` box in a CR3's `moov`: 85c0b687-820f-11e0-8111-f4ce462b6a48.
    static let canonUUID: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]
    static let rafSignature = Array("FUJIFILMCCD-RAW".utf8)
    /// Where a RAF's header keeps its JPEG preview's offset and length (big-endian).
    static let rafPreviewField = 84

    /// The block, or nil when the raw keeps no EXIF where its format puts it.
    static func block(of bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        if let structure = TIFFStructure(bytes, acceptingCameraRawVersions: true) {
            return structure.entries(ofIFDAt: structure.ifd0Offset).flatMap {
                TIFFEXIFBlock.block(of: structure, ifd0: $0)
            }
        }
        if bytes.starts(with: rafSignature) { return rafBlock(bytes) }
        if bytes.count >= 12, bytes[4..<12].elementsEqual("ftypcrx ".utf8) { return cr3Block(bytes) }
        return nil
    }

    private static func cr3Block(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let moov = TopLevelBoxes(bytes).first(where: { $0.type == "moov" }),
            let canon = TopLevelBoxes(moov.payload).first(where: {
                $0.type == "uuid" && $0.payload.starts(with: canonUUID)
            })
        else { return nil }
        var directories: [String: TIFFEXIFBlock.Directory] = [:]
        for box in TopLevelBoxes(canon.payload, from: canonUUID.count)
        where ["CMT1", "CMT2", "CMT4"].contains(box.type) {
            guard directories[box.type] == nil, let structure = TIFFStructure(box.payload),
                let entries = structure.entries(ofIFDAt: structure.ifd0Offset)
            else { continue }
            directories[box.type] = TIFFEXIFBlock.Directory(structure: structure, entries: entries)
        }
        guard let ifd0 = directories["CMT1"] else { return nil }
        return TIFFEXIFBlock.block(ifd0: ifd0, exif: directories["CMT2"], gps: directories["CMT4"])
    }

    private static func rafBlock(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let header = ByteReader(bytes)
        guard let offset = header.uint32(at: rafPreviewField).map(Int.init),
            let length = header.uint32(at: rafPreviewField + 4).map(Int.init),
            offset <= bytes.count, length <= bytes.count - offset
        else { return nil }
        let preview = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        guard let segment = SegmentWalker.walk(preview).exifSegment(in: preview) else { return nil }
        return Array(preview[segment.payload])
    }
}
