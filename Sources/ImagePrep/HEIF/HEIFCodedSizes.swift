/// The picture sizes, chroma format and bit depths that an HEVC image's sequence parameter sets
/// declare (ITU-T H.265 7.3.2.2), which is what libde265 allocates and decodes, whatever the HEIF
/// file's `ispe` and `hvcC` say.
enum HEVCParameterSets {
    /// NAL unit type 33.
    static let sequenceParameterSet = 33
    /// More NAL units than this in one image item is not a photo: x265 and Apple write a few.
    static let maxNALUnits = 4096

    /// The size of every SPS in the `hvcC` box (ISO/IEC 14496-15 8.3.3.1) and in the item's data,
    /// whose NAL units are prefixed with the length size `hvcC` gives; nil when the data holds
    /// more than `maxNALUnits`, which would leave some unread.
    ///
    /// - Parameter cropped: each size after the SPS's conformance window, which is what the
    ///   decoder gives out (rather than what it allocates).
    static func pictureSizes(
        configuration: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, cropped: Bool = false
    ) -> [PixelSize]? {
        var sizes: [PixelSize] = []
        let isRead = forEachNALUnit(configuration: configuration, data: data) { unit in
            if let size = size(ofNALUnit: unit, cropped: cropped) { sizes.append(size) }
        }
        return isRead ? sizes : nil
    }

    /// What every SPS in the `hvcC` box and in the item's data declares; nil when one does not
    /// read to its bit depths, or when the data holds more than `maxNALUnits`: what the decoder
    /// would be given is then not known.
    static func declarations(
        configuration: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
    ) -> [SequenceDeclaration]? {
        var declarations: [SequenceDeclaration] = []
        var isUnread = false
        let isRead = forEachNALUnit(configuration: configuration, data: data) { unit in
            guard isSequenceParameterSet(unit) else { return }
            if let declaration = declaration(ofNALUnit: unit) {
                declarations.append(declaration)
            } else {
                isUnread = true
            }
        }
        return isRead && !isUnread ? declarations : nil
    }

    /// Hands `body` each NAL unit of the `hvcC` box's arrays, then of the data, whose units are
    /// behind the length size `hvcC` gives (none with a length size of 3, which no encoder
    /// writes); false when the data holds more than `maxNALUnits`, which would leave some unread.
    private static func forEachNALUnit(
        configuration: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) -> Void
    ) -> Bool {
        // 22 bytes of profile and format, then lengthSizeMinusOne, then the NAL unit arrays.
        guard configuration.count >= 23 else { return true }
        let lengthSize = Int(configuration[21] & 3) + 1
        var offset = 23
        let reader = ByteReader(configuration)
        for _ in 0..<configuration[22] {
            guard let count = reader.uint16(at: offset + 1) else { break }
            offset += 3
            for _ in 0..<count {
                guard let length = reader.uint16(at: offset).map(Int.init) else { break }
                offset += 2
                guard offset + length <= configuration.count else { break }
                body(UnsafeRawBufferPointer(rebasing: configuration[offset..<(offset + length)]))
                offset += length
            }
        }
        guard lengthSize != 3 else { return true }
        offset = 0
        var units = 0
        let dataReader = ByteReader(data)
        while let length = dataReader.uint(at: offset, size: lengthSize).map(Int.init) {
            guard units < maxNALUnits else { return false }
            offset += lengthSize
            let end = min(data.count, offset + length)
            body(UnsafeRawBufferPointer(rebasing: data[offset..<end]))
            offset = end
            units += 1
        }
        return true
    }

    private static func isSequenceParameterSet(_ unit: UnsafeRawBufferPointer) -> Bool {
        unit.count > 2 && Int(unit[0] >> 1 & 0x3F) == sequenceParameterSet
    }

    /// An SPS's pic_width_in_luma_samples and pic_height_in_luma_samples, less its conformance
    /// window when `cropped`; nil for other NAL units, and for a window wider than the picture.
    static func size(ofNALUnit unit: UnsafeRawBufferPointer, cropped: Bool = false) -> PixelSize? {
        guard isSequenceParameterSet(unit) else { return nil }
        var bits = rbsp(of: unit)
        let picture = readThroughPictureSize(&bits)
        var (width, height) = (picture.width, picture.height)
        if cropped, bits.read(1) == 1 {
            guard let window = readConformanceWindow(&bits, chromaFormat: picture.chromaFormat) else { return nil }
            width -= window.width
            height -= window.height
            guard width > 0, height > 0 else { return nil }
        }
        guard !bits.isPastEnd else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// What an SPS declares, read to its bit depths; nil for other NAL units and for one that ends
    /// before them.
    static func declaration(ofNALUnit unit: UnsafeRawBufferPointer) -> SequenceDeclaration? {
        guard isSequenceParameterSet(unit) else { return nil }
        var bits = rbsp(of: unit)
        let (chromaFormat, width, height) = readThroughPictureSize(&bits)
        var window = (width: 0, height: 0)
        if bits.read(1) == 1 {  // conformance_window_flag
            guard let read = readConformanceWindow(&bits, chromaFormat: chromaFormat) else { return nil }
            window = read
        }
        let lumaBitDepth = bits.readExpGolomb() + 8
        let chromaBitDepth = bits.readExpGolomb() + 8
        guard !bits.isPastEnd else { return nil }
        return SequenceDeclaration(
            codedSize: PixelSize(width: width, height: height),
            outputSize: width > window.width && height > window.height
                ? PixelSize(width: width - window.width, height: height - window.height) : nil,
            chromaFormat: chromaFormat, lumaBitDepth: lumaBitDepth, chromaBitDepth: chromaBitDepth)
    }

    /// The unit's payload after its 2-byte header, without emulation prevention; the fields read
    /// here are within its first hundred bytes, whatever follows.
    private static func rbsp(of unit: UnsafeRawBufferPointer) -> BitReader {
        BitReader(removingEmulationPrevention: UnsafeRawBufferPointer(rebasing: unit[2..<min(unit.count, 256)]))
    }

    /// Reads an SPS (H.265 7.3.2.2.1) from its start through pic_height_in_luma_samples.
    private static func readThroughPictureSize(_ bits: inout BitReader) -> (chromaFormat: Int, width: Int, height: Int)
    {
        bits.skip(4)  // sps_video_parameter_set_id
        let subLayers = bits.read(3)  // sps_max_sub_layers_minus1
        bits.skip(1)
        // profile_tier_level(1, sps_max_sub_layers_minus1): 88 bits of general profile, 8 of level.
        bits.skip(96)
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<subLayers {
            profilePresent.append(bits.read(1) == 1)
            levelPresent.append(bits.read(1) == 1)
        }
        if subLayers > 0 { bits.skip(2 * (8 - subLayers)) }
        for layer in 0..<subLayers {
            if profilePresent[layer] { bits.skip(88) }
            if levelPresent[layer] { bits.skip(8) }
        }
        _ = bits.readExpGolomb()  // sps_seq_parameter_set_id
        let chromaFormat = bits.readExpGolomb()
        if chromaFormat == 3 { bits.skip(1) }  // separate_colour_plane_flag
        let width = bits.readExpGolomb()
        let height = bits.readExpGolomb()
        return (chromaFormat, width, height)
    }

    /// conf_win_left, right, top and bottom offsets, in chroma samples (H.265 7.4.3.2.1), as the
    /// luma samples they take off the width and the height; each offset is below 2^32, so the
    /// sums cannot overflow. Nil when they run past the end.
    private static func readConformanceWindow(
        _ bits: inout BitReader, chromaFormat: Int
    ) -> (width: Int, height: Int)? {
        let (left, right, top, bottom) = (
            bits.readExpGolomb(), bits.readExpGolomb(), bits.readExpGolomb(), bits.readExpGolomb()
        )
        guard !bits.isPastEnd else { return nil }
        return (
            (chromaFormat == 1 || chromaFormat == 2 ? 2 : 1) * (left + right),
            (chromaFormat == 1 ? 2 : 1) * (top + bottom)
        )
    }

    /// What one SPS declares of the pictures it codes.
    struct SequenceDeclaration: Equatable {
        /// pic_width_in_luma_samples by pic_height_in_luma_samples: what the decoder allocates.
        var codedSize: PixelSize
        /// The pictures it gives out, after the conformance window; nil for a window as wide or
        /// as tall as the picture.
        var outputSize: PixelSize?
        /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
        var chromaFormat: Int
        var lumaBitDepth: Int
        var chromaBitDepth: Int
    }
}

/// The largest frame that an AV1 image's sequence headers allow (AV1 5.5), which is what dav1d
/// and libaom allocate, whatever the HEIF file's `ispe` says.
enum AV1SequenceHeaders {
    /// OBU type 1.
    static let sequenceHeader = 1
    /// More OBUs than this in one image item is not a photo.
    static let maxOBUs = 4096

    /// The maximum frame size of every sequence header in the `av1C` box's configOBUs (after its
    /// four bytes) and in the item's data; nil when either holds more than `maxOBUs`.
    static func maximumFrameSizes(configuration: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> [PixelSize]? {
        var sizes: [PixelSize] = []
        for obus in [configuration.count > 4 ? UnsafeRawBufferPointer(rebasing: configuration[4...]) : nil, data] {
            guard let obus else { continue }
            var offset = 0
            var count = 0
            while offset < obus.count {
                guard count < maxOBUs else { return nil }
                let header = obus[offset]
                let type = Int(header >> 3 & 15)
                let hasExtension = header & 4 != 0
                let hasSize = header & 2 != 0
                offset += hasExtension ? 2 : 1
                var length = obus.count - offset
                if hasSize {
                    guard let (value, used) = leb128(obus, at: offset) else { break }
                    offset += used
                    length = value
                }
                let end = offset <= obus.count ? min(obus.count, offset + length) : obus.count
                guard offset < end else { break }
                if type == sequenceHeader,
                    let size = maximumFrameSize(ofSequenceHeader: UnsafeRawBufferPointer(rebasing: obus[offset..<end]))
                {
                    sizes.append(size)
                }
                offset = end
                count += 1
            }
        }
        return sizes
    }

    /// leb128(): at most eight bytes, seven bits each.
    private static func leb128(_ bytes: UnsafeRawBufferPointer, at start: Int) -> (Int, Int)? {
        var value = 0
        for index in 0..<8 where start + index < bytes.count {
            let byte = bytes[start + index]
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return nil
    }

    /// max_frame_width_minus_1 + 1 and max_frame_height_minus_1 + 1 of a sequence header OBU.
    static func maximumFrameSize(ofSequenceHeader payload: UnsafeRawBufferPointer) -> PixelSize? {
        // The size is within the first hundred bytes, whatever follows.
        var bits = BitReader(UnsafeRawBufferPointer(rebasing: payload.prefix(256)))
        bits.skip(4)  // seq_profile, still_picture
        if bits.read(1) == 1 {  // reduced_still_picture_header
            bits.skip(5)  // seq_level_idx[0]
        } else {
            var decoderModelInfoPresent = false
            var bufferDelayLength = 0
            if bits.read(1) == 1 {  // timing_info_present_flag
                bits.skip(64)  // num_units_in_display_tick, time_scale
                if bits.read(1) == 1 { _ = bits.readExpGolomb() }  // equal_picture_interval: uvlc()
                decoderModelInfoPresent = bits.read(1) == 1
                if decoderModelInfoPresent {
                    bufferDelayLength = bits.read(5) + 1
                    bits.skip(32 + 5 + 5)
                }
            }
            let initialDisplayDelayPresent = bits.read(1) == 1
            let operatingPoints = bits.read(5) + 1
            for _ in 0..<operatingPoints {
                bits.skip(12)  // operating_point_idc
                if bits.read(5) > 7 { bits.skip(1) }  // seq_level_idx, seq_tier
                if decoderModelInfoPresent, bits.read(1) == 1 { bits.skip(2 * bufferDelayLength + 1) }
                if initialDisplayDelayPresent, bits.read(1) == 1 { bits.skip(4) }
                guard !bits.isPastEnd else { return nil }
            }
        }
        let widthBits = bits.read(4) + 1
        let heightBits = bits.read(4) + 1
        let width = bits.read(widthBits) + 1
        let height = bits.read(heightBits) + 1
        guard !bits.isPastEnd else { return nil }
        return PixelSize(width: width, height: height)
    }
}

/// Reads bits most significant first; past the end it reads zeros and says so in `isPastEnd`.
struct BitReader {
    private var bytes: [UInt8]
    private var position = 0
    private(set) var isPastEnd = false

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = Array(bytes) }

    /// H.265's RBSP: every `00 00 03` loses its `03` (emulation prevention, 7.4.2).
    init(removingEmulationPrevention bytes: UnsafeRawBufferPointer) {
        var payload: [UInt8] = []
        payload.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            payload.append(byte)
        }
        self.bytes = payload
    }

    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = position / 8
            guard byte < bytes.count else {
                isPastEnd = true
                return value << 1
            }
            value = value << 1 | Int(bytes[byte] >> (7 - UInt8(position % 8)) & 1)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) {
        position += count
        if position > bytes.count * 8 { isPastEnd = true }
    }

    /// ue(v) of H.265 9.2, which is also AV1's uvlc() (4.10.3); more than 31 leading zeros is not
    /// a size and reads as past the end.
    mutating func readExpGolomb() -> Int {
        var zeros = 0
        while read(1) == 0 {
            zeros += 1
            guard zeros <= 31, !isPastEnd else {
                isPastEnd = true
                return 0
            }
        }
        return (1 << zeros) - 1 + read(zeros)
    }
}
