/// A Photoshop file's layout (PSD, version 1, and PSB, version 2): its header, its colour mode
/// data, the image resources ImagePrep reads, whether the merged composite carries transparency,
/// and where the composite's image data starts. Every length is checked against the bytes.
struct PSDHeader {
    enum ColorMode: UInt16 {
        case bitmap = 0
        case gray = 1
        case indexed = 2
        case rgb = 3
        case cmyk = 4
        case multichannel = 7
        case duotone = 8
        case lab = 9
    }

    enum Compression: UInt16 {
        case raw = 0
        case runLength = 1
        case zip = 2
        case zipWithPrediction = 3
    }

    static let signature = Array("8BPS".utf8)
    static let resourceSignature = Array("8BIM".utf8)
    static let iccResource: UInt16 = 1039
    static let exifResource: UInt16 = 1058
    static let xmpResource: UInt16 = 1060
    static let versionResource: UInt16 = 1057

    let isLarge: Bool
    let channelCount: Int
    let size: PixelSize
    let depth: Int
    let colorMode: UInt16
    /// The indexed mode's 256 colours, red, green and blue planes of 256 bytes each.
    let palette: UnsafeRawBufferPointer
    /// The image resources by id; the first of each.
    let resources: [UInt16: UnsafeRawBufferPointer]
    /// Whether the first channel after the colour channels is the composite's transparency (a
    /// negative layer count says so).
    let hasMergedTransparency: Bool
    /// The image data section: a compression method and the channels' data; empty when absent.
    let imageData: UnsafeRawBufferPointer

    static func hasSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 6 && bytes.starts(with: signature) && bytes[4] == 0 && (bytes[5] == 1 || bytes[5] == 2)
    }

    /// - Throws: `.corruptPSD` when a section's length does not fit the file.
    init(_ bytes: UnsafeRawBufferPointer, file: String) throws(ImagePrepError) {
        var reader = PSDFieldReader(bytes)
        guard bytes.count >= 26 else { throw .corruptPSD(file: file, detail: "its header is cut short") }
        reader.offset = 4
        isLarge = reader.u16() == 2
        reader.offset = 12
        channelCount = Int(reader.u16())
        let height = Int(reader.u32())
        let width = Int(reader.u32())
        depth = Int(reader.u16())
        colorMode = reader.u16()
        size = PixelSize(width: width, height: height)
        guard (1...56).contains(channelCount) else {
            throw .corruptPSD(
                file: file, detail: "its header gives \(channelCount) channels, where 1 to 56 are allowed")
        }
        guard let colorData = reader.section(lengthBytes: 4) else {
            throw .corruptPSD(file: file, detail: "its colour mode data runs past the end of the file")
        }
        palette = colorData
        guard let resourceData = reader.section(lengthBytes: 4) else {
            throw .corruptPSD(file: file, detail: "its image resources run past the end of the file")
        }
        resources = Self.resources(in: resourceData)
        guard let layerData = reader.section(lengthBytes: isLarge ? 8 : 4) else {
            throw .corruptPSD(file: file, detail: "its layer and mask section runs past the end of the file")
        }
        var layers = PSDFieldReader(layerData)
        let layerInfo = layers.section(lengthBytes: isLarge ? 8 : 4)
        var layerCount = PSDFieldReader(layerInfo ?? UnsafeRawBufferPointer(start: nil, count: 0))
        hasMergedTransparency = Int16(bitPattern: layerCount.u16()) < 0
        imageData = UnsafeRawBufferPointer(rebasing: bytes[reader.offset...])
    }

    /// Whether the file says its composite is the real merged picture: Photoshop writes a blank
    /// one, and 0 in its version resource, when "Maximize Compatibility" is off.
    var hasRealComposite: Bool {
        guard let version = resources[Self.versionResource], version.count >= 5 else { return true }
        return version[4] != 0
    }

    /// The `8BIM` resources of the section: id, a padded Pascal name, a length and padded data.
    private static func resources(in section: UnsafeRawBufferPointer) -> [UInt16: UnsafeRawBufferPointer] {
        var found: [UInt16: UnsafeRawBufferPointer] = [:]
        var reader = PSDFieldReader(section)
        while reader.remaining >= 12, section[reader.offset..<(reader.offset + 4)].elementsEqual(resourceSignature) {
            reader.offset += 4
            let id = reader.u16()
            let nameLength = Int(section[reader.offset])
            let paddedName = (nameLength + 2) & ~1
            guard reader.remaining >= paddedName + 4 else { break }
            reader.offset += paddedName
            guard let data = reader.section(lengthBytes: 4) else { break }
            if data.count % 2 == 1, reader.remaining > 0 { reader.offset += 1 }
            if found[id] == nil { found[id] = data }
        }
        return found
    }
}

/// Big-endian numbers read from a buffer whose length the caller checks (`remaining`).
struct PSDFieldReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { max(bytes.count - offset, 0) }

    mutating func u16() -> UInt16 { UInt16(truncatingIfNeeded: number(2)) }

    mutating func u32() -> UInt32 { UInt32(truncatingIfNeeded: number(4)) }

    /// The next `size` bytes as a number; 0 when they run past the end, which then ends the reading.
    private mutating func number(_ size: Int) -> UInt64 {
        guard let value = ByteReader(bytes).uint(at: offset, size: size) else {
            offset = bytes.count
            return 0
        }
        offset += size
        return value
    }

    /// A length of `lengthBytes` bytes, then that many bytes; nil when they run past the end.
    mutating func section(lengthBytes: Int) -> UnsafeRawBufferPointer? {
        guard let length = ByteReader(bytes).uint(at: offset, size: lengthBytes) else { return nil }
        offset += lengthBytes
        guard length <= UInt64(remaining) else { return nil }
        defer { offset += Int(length) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
    }
}
