internal import CHeif
internal import PlatformLayer

/// A libheif context that reads a file held in memory, with exactly one owner.
///
/// libheif reads the caller's bytes without copying them (`_without_copy`, or through a
/// `HEIFMemoryReader`), so a context must not outlive them: it lives inside the `withUnsafeBytes`
/// of the photo's data.
struct HEIFContext: ~Copyable {
    let pointer: OpaquePointer
    let libheif: Libheif
    /// What libheif reads through when a cancel can stop it; freed after the context (a
    /// `deinit` runs before the stored properties are released).
    private let reader: HEIFMemoryReader?

    /// - Parameters:
    ///   - decodingThreads: tiles are decoded on the calling thread (0) or on this many more.
    ///   - maximumSide: libheif refuses to read a file whose images are wider or taller; its own
    ///     default, 32768, unless given.
    ///   - cancellation: when given, libheif reads through a `HEIFMemoryReader` that stops its
    ///     decode at the next tile once this is raised.
    init(
        _ bytes: UnsafeRawBufferPointer, libheif: Libheif, decodingThreads: Int, maximumSide: Int? = nil,
        cancellation: PreparationCancellation? = nil, file: String
    ) throws(ImagePrepError) {
        guard let pointer = libheif.heif_context_alloc() else {
            throw .corruptHEIF(file: file, detail: "libheif could not start a context")
        }
        libheif.heif_context_set_max_decoding_threads(pointer, Int32(decodingThreads))
        if let maximumSide { libheif.heif_context_set_maximum_image_size_limit(pointer, Int32(clamping: maximumSide)) }
        let reader = cancellation.map { HEIFMemoryReader(bytes, cancellation: $0) }
        let error =
            if let reader {
                libheif.heif_context_read_from_reader(pointer, reader.readerTable, reader.userdata, nil)
            } else {
                libheif.heif_context_read_from_memory_without_copy(pointer, bytes.baseAddress, bytes.count, nil)
            }
        guard error.code == heif_error_Ok else {
            let refusal = LibheifMessage(error).error(file: file)  // before the free: the context owns its text
            libheif.heif_context_free(pointer)
            throw refusal
        }
        self.pointer = pointer
        self.libheif = libheif
        self.reader = reader
    }

    deinit { libheif.heif_context_free(pointer) }

    /// The primary image.
    func primaryImage(file: String) throws(ImagePrepError) -> HEIFImageHandle {
        var handle: OpaquePointer?
        let error = libheif.heif_context_get_primary_image_handle(pointer, &handle)
        guard error.code == heif_error_Ok, let handle else { throw LibheifMessage(error).error(file: file) }
        return HEIFImageHandle(pointer: handle, libheif: libheif)
    }
}

/// A handle to one image of a HEIF file (its metadata and its way to pixels), with one owner.
struct HEIFImageHandle: ~Copyable {
    let pointer: OpaquePointer
    let libheif: Libheif

    deinit { libheif.heif_image_handle_release(pointer) }

    /// The size libheif gives the image once it has applied the file's crop, rotation and mirror.
    var displayedSize: PixelSize {
        PixelSize(
            width: Int(libheif.heif_image_handle_get_width(pointer)),
            height: Int(libheif.heif_image_handle_get_height(pointer)))
    }

    /// The image's nclx colour description (its `colr` box of type `nclx`), or nil when it has
    /// none. libheif 1.15 reads no other: a coded stream's own colour description is not seen,
    /// by libheif's conversions nor by ImagePrep, which then takes JPEG's full-range BT.601.
    var nclx: NCLXColor? {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = libheif.heif_image_handle_get_nclx_color_profile(pointer, &profile)
        guard error.code == heif_error_Ok, let profile else { return nil }
        defer { libheif.heif_nclx_color_profile_free(profile) }
        let p = profile.pointee
        return NCLXColor(
            primaries: Int(p.color_primaries.rawValue), transfer: Int(p.transfer_characteristics.rawValue),
            matrix: Int(p.matrix_coefficients.rawValue), isFullRange: p.full_range_flag != 0,
            red: (Double(p.color_primary_red_x), Double(p.color_primary_red_y)),
            green: (Double(p.color_primary_green_x), Double(p.color_primary_green_y)),
            blue: (Double(p.color_primary_blue_x), Double(p.color_primary_blue_y)),
            white: (Double(p.color_primary_white_x), Double(p.color_primary_white_y)))
    }

}

/// Pixels libheif decoded, with one owner.
struct HEIFImage: ~Copyable {
    let pointer: OpaquePointer
    let libheif: Libheif

    deinit { libheif.heif_image_release(pointer) }

    func plane(_ channel: heif_channel) -> (pixels: UnsafePointer<UInt8>, stride: Int)? {
        var stride: Int32 = 0
        guard let pixels = libheif.heif_image_get_plane_readonly(pointer, channel, &stride), stride > 0 else {
            return nil
        }
        return (pixels, Int(stride))
    }

    func size(of channel: heif_channel) -> PixelSize {
        PixelSize(
            width: Int(libheif.heif_image_get_width(pointer, channel)),
            height: Int(libheif.heif_image_get_height(pointer, channel)))
    }

    /// The problems libheif's non-strict decoding met and decoded past, each said once.
    ///
    /// libheif 1.15 writes every warning from the first one asked for, whatever the room it is
    /// given (a damaged AVIF with two warnings overran a one-entry buffer and smashed the stack),
    /// so the buffer holds the count it first gives.
    var warnings: [PhotoWarning] {
        let count = Int(libheif.heif_image_get_decoding_warnings(pointer, 0, nil, 0))
        guard count > 0 else { return [] }
        let empty = heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        var buffer = [heif_error](repeating: empty, count: count)
        let written = min(count, Int(libheif.heif_image_get_decoding_warnings(pointer, 0, &buffer, Int32(count))))
        var found: [PhotoWarning] = []
        for warning in buffer.prefix(max(0, written)) {
            let said = LibheifMessage(warning).warning
            if !found.contains(said) { found.append(said) }
        }
        return found
    }
}

/// An nclx colour description (ITU-T H.273): primaries, transfer curve, matrix and range.
struct NCLXColor: Equatable, Sendable {
    var primaries: Int
    var transfer: Int
    var matrix: Int
    var isFullRange: Bool
    /// The primaries' and white point's CIE xy, as libheif gives them for `primaries`.
    var red: (x: Double, y: Double)
    var green: (x: Double, y: Double)
    var blue: (x: Double, y: Double)
    var white: (x: Double, y: Double)

    static func == (a: NCLXColor, b: NCLXColor) -> Bool {
        (a.primaries, a.transfer, a.matrix, a.isFullRange) == (b.primaries, b.transfer, b.matrix, b.isFullRange)
    }

    /// Whether the samples are JPEG's YCbCr: full range, BT.601's matrix (5 and 6 are the same
    /// matrix; libheif reads "unspecified", 2, as BT.601 too).
    var isJPEGYCbCr: Bool { isFullRange && Self.jpegMatrices.contains(matrix) }

    static let jpegMatrices: Set<Int> = [2, 5, 6]
}

/// Decodes the primary image of a HEIF file through libheif into the planes the JPEG path makes.
enum HEIFDecoder {
    /// What the decode gives besides the planes.
    struct DecodeReport {
        /// The turn the planes still need to show upright: the file's `irot` and `imir`, which
        /// ImagePrep applies itself after resampling; `.up` when libheif applied them.
        var orientation: Orientation
        /// The whole factor by which the planes are smaller than the image: the `reduction`
        /// asked for, or 1 when the samples went through RGB.
        var reduction: Int
        var warnings: [PhotoWarning]
    }

    /// Decodes into `image` as YCbCr (or gray) planes, with one decode: straight from the
    /// decoder's planes when they are JPEG's full-range BT.601 YCbCr, as phones write HEIC
    /// (libheif only scales samples of more than 8 bits to 8); anything else (limited range,
    /// BT.709 or BT.2020 matrices) through libheif's own conversion to 8-bit RGB.
    ///
    /// - Parameters:
    ///   - plan: from `HEIFContainer`; its sizes have been held to the pixel limit.
    ///   - nclx: the file's nclx colour description, which says how to read the samples.
    ///   - reduction: 1, 2, 4 or 8: the planes are averaged down by this factor as they are
    ///     copied (the JPEG path's DCT scale rule picks it), so that they hold no more than the
    ///     upload needs.
    static func decode(
        _ handle: borrowing HEIFImageHandle, plan: HEIFContainer.DecodePlan, nclx: NCLXColor?, reduction: Int,
        into image: PlanarImage, file: String
    ) throws(ImagePrepError) -> DecodeReport {
        let appliesTransforms = plan.orientation == nil
        let expected = decodedSize(of: handle, plan: plan)
        let result = { (decoded: borrowing HEIFImage, reduction: Int) in
            DecodeReport(orientation: plan.orientation ?? .up, reduction: reduction, warnings: decoded.warnings)
        }
        // Gray samples have no matrix to undo, so a monochrome image always keeps its one plane
        // (through RGB it came out as three components, and a gray ICC profile then no longer fit).
        let isMonochrome = plan.codedFormat?.chroma == .monochrome
        if nclx?.isJPEGYCbCr ?? true || isMonochrome, let format = plan.codedFormat {
            // Asking for the decoder's own layout makes libheif convert nothing.
            let (colorspace, chroma) =
                switch format.chroma {
                case .monochrome: (heif_colorspace_monochrome, heif_chroma_monochrome)
                case .yuv420: (heif_colorspace_YCbCr, heif_chroma_420)
                case .yuv422: (heif_colorspace_YCbCr, heif_chroma_422)
                case .yuv444: (heif_colorspace_YCbCr, heif_chroma_444)
                }
            let decoded: HEIFImage
            do {
                decoded = try decodeImage(
                    handle, colorspace: colorspace, chroma: chroma, appliesTransforms: appliesTransforms, file: file)
            } catch {
                // libheif 1.15 gives a grid of gray tiles (an iPhone's gain map at full size) as
                // YCbCr 4:2:0, whose luma is the gray, but not as monochrome.
                guard isMonochrome else { throw error }
                decoded = try decodeImage(
                    handle, colorspace: heif_colorspace_YCbCr, chroma: heif_chroma_420,
                    appliesTransforms: appliesTransforms, file: file)
            }
            let expandsRange = isMonochrome && !(nclx?.isFullRange ?? true)
            if try copyPlanes(
                of: decoded, expected: expected, reduction: reduction, expandingVideoRange: expandsRange, into: image,
                file: file)
            {
                return result(decoded, reduction)
            }
        }
        let decoded = try decodeImage(
            handle, colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RGB,
            appliesTransforms: appliesTransforms, file: file)
        guard let rgb = decoded.plane(heif_channel_interleaved),
            decoded.size(of: heif_channel_interleaved).covers(expected)
        else { throw .corruptHEIF(file: file, detail: "the decoded image is smaller than the file declares") }
        try image.reshape(size: expected, isGray: false, subsampling: .full, file: file)
        let compressor = try Compressor(file: file)
        try JPEGEncoder.convert(rgb: rgb.pixels, pitch: rgb.stride, into: image, compressor: compressor, file: file)
        return result(decoded, 1)
    }

    /// The size libheif decodes the image to: as stored, since ImagePrep turns it itself (after
    /// resampling, which costs a fraction of turning the full-size decode and needs no second
    /// full-size image); turned by libheif only when a crop (`clap`) comes with the turn.
    static func decodedSize(of handle: borrowing HEIFImageHandle, plan: HEIFContainer.DecodePlan) -> PixelSize {
        plan.orientation == nil ? handle.displayedSize : plan.storedSize
    }

    /// Refuses, before decoding, an image whose codec this libheif has no decoder for: Debian
    /// 12's has libde265 for HEVC and dav1d and libaom for AV1, but another build may lack one.
    ///
    /// - Parameter hasDecoder: libheif's answer (`Libheif.hasDecoder`); tests stand in for a
    ///   build without one.
    static func checkDecoders(
        for codecs: Set<HEIFContainer.Codec>, file: String, hasDecoder: (HEIFContainer.Codec) -> Bool
    ) throws(ImagePrepError) {
        for codec in codecs.sorted(by: { $0.description < $1.description }) where !hasDecoder(codec) {
            throw .unsupportedHEIF(
                file: file, reason: "its image is coded as \(codec), and this libheif has no \(codec) decoder")
        }
    }

    /// - Parameter keepsBitDepth: samples of more than 8 bits are left as they are, not scaled
    ///   to 8 bits by libheif (a whole-image conversion).
    static func decodeImage(
        _ handle: borrowing HEIFImageHandle, colorspace: heif_colorspace, chroma: heif_chroma, appliesTransforms: Bool,
        keepsBitDepth: Bool = false, file: String
    ) throws(ImagePrepError) -> HEIFImage {
        let libheif = handle.libheif
        guard let options = libheif.heif_decoding_options_alloc() else {
            throw .corruptHEIF(file: file, detail: "libheif could not allocate its decoding options")
        }
        defer { libheif.heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = appliesTransforms ? 0 : 1
        options.pointee.convert_hdr_to_8bit = keepsBitDepth ? 0 : 1
        var image: OpaquePointer?
        let error = FreshMemory.filled {
            libheif.heif_decode_image(handle.pointer, &image, colorspace, chroma, options)
        }
        guard error.code == heif_error_Ok, let image else { throw LibheifMessage(error).error(file: file) }
        return HEIFImage(pointer: image, libheif: libheif)
    }

    /// Copies 8-bit YCbCr or gray planes of the expected size into `image`, reduced by a whole
    /// factor; false when the decode is anything else (or the wrong size), which then goes
    /// through RGB. Gray samples of 9 to 16 bits, which libheif 1.15 leaves as they are, are
    /// scaled to 8 bits here, and gray in video range (16–235) is stretched to full range.
    private static func copyPlanes(
        of decoded: borrowing HEIFImage, expected: PixelSize, reduction: Int, expandingVideoRange: Bool,
        into image: PlanarImage, file: String
    ) throws(ImagePrepError) -> Bool {
        let libheif = decoded.libheif
        let colorspace = libheif.heif_image_get_colorspace(decoded.pointer)
        let chroma = libheif.heif_image_get_chroma_format(decoded.pointer)
        let lumaBits = Int(libheif.heif_image_get_bits_per_pixel_range(decoded.pointer, heif_channel_Y))
        let isGray = colorspace == heif_colorspace_monochrome
        guard decoded.size(of: heif_channel_Y).covers(expected),
            lumaBits == 8 || (isGray && (9...16).contains(lumaBits))
        else { return false }
        let channels: [heif_channel]
        let subsampling: ChromaSubsampling
        if isGray {
            (channels, subsampling) = ([heif_channel_Y], .full)
        } else if colorspace == heif_colorspace_YCbCr {
            channels = [heif_channel_Y, heif_channel_Cb, heif_channel_Cr]
            switch chroma {
            case heif_chroma_420: subsampling = .quarter
            case heif_chroma_422: subsampling = ChromaSubsampling(horizontal: 2, vertical: 1)
            case heif_chroma_444: subsampling = .full
            default: return false
            }
        } else {
            return false
        }
        try image.reshape(
            size: JPEGDecoder.scaled(expected, by: reduction), isGray: channels.count == 1, subsampling: subsampling,
            file: file)
        for (plane, channel) in zip(image.activePlanes, channels) {
            guard let source = decoded.plane(channel),
                Int(libheif.heif_image_get_bits_per_pixel_range(decoded.pointer, channel)) == lumaBits
            else { return false }
            // The declared image's part of the plane, from its top left (`covers`).
            let factor = channel == heif_channel_Y ? ChromaSubsampling.full : subsampling
            let size = PixelSize(
                width: (expected.width + factor.horizontal - 1) / factor.horizontal,
                height: (expected.height + factor.vertical - 1) / factor.vertical)
            guard decoded.size(of: channel).covers(size) else { return false }
            let reduced = JPEGDecoder.scaled(size, by: reduction)
            // libheif's chroma planes are the image size divided by the subsampling, rounded up:
            // exactly what TurboJPEG's planar layout holds, at any reduction.
            guard reduced.width <= plane.width, reduced.height <= plane.height else { return false }
            var eightBit: [UInt8] = []
            if lumaBits > 8 || expandingVideoRange {
                guard source.stride >= size.width * (lumaBits > 8 ? 2 : 1) else { return false }
                eightBit = grayToEightBits(source, size: size, bits: lumaBits, expandingVideoRange: expandingVideoRange)
            }
            eightBit.withUnsafeBufferPointer { converted in
                let (pixels, stride) =
                    converted.isEmpty ? (source.pixels, source.stride) : (converted.baseAddress!, size.width)
                if reduction == 1 {
                    for y in 0..<size.height { plane.row(y).update(from: pixels + y * stride, count: size.width) }
                } else {
                    average(pixels, stride: stride, size: size, by: reduction, into: plane)
                }
            }
        }
        image.replicateLumaEdges()
        return true
    }

    /// Gray samples of `bits` bits (two bytes each, in the machine's order, when over 8) as
    /// 8-bit full-range ones, row after row.
    private static func grayToEightBits(
        _ source: (pixels: UnsafePointer<UInt8>, stride: Int), size: PixelSize, bits: Int, expandingVideoRange: Bool
    ) -> [UInt8] {
        let maximum = (1 << bits) - 1
        // Video range is 16–235 at 8 bits, scaled by 2^(bits - 8) above (H.273).
        let (black, span) = expandingVideoRange ? (16 << (bits - 8), 219 << (bits - 8)) : (0, maximum)
        var output = [UInt8](repeating: 0, count: size.width * size.height)
        for y in 0..<size.height {
            let row = source.pixels + y * source.stride
            for x in 0..<size.width {
                let sample =
                    bits > 8
                    ? Int(UnsafeRawPointer(row).loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)) : Int(row[x])
                let level = (min(max(sample - black, 0), span) * 255 + span / 2) / span
                output[y * size.width + x] = UInt8(level)
            }
        }
        return output
    }

    /// Each `factor` x `factor` block of the source as one sample (`RowAverager`).
    static func average(
        _ source: UnsafePointer<UInt8>, stride: Int, size: PixelSize, by factor: Int, into plane: PixelPlane
    ) {
        let averager = RowAverager(width: size.width, height: size.height, factor: factor)
        for y in 0..<size.height {
            averager.add(source + y * stride, at: y) { row, index in
                plane.row(index).update(from: row, count: averager.averagedWidth)
            }
        }
    }
}

extension PixelSize {
    /// Whether a decoded picture of this size holds an image of `declared` size at its top
    /// left: a coded picture may be larger than the `ispe` it comes with (an iPhone 8's 100x76
    /// for 100x74), and is then cut to it, as heif-convert shows the declared image.
    fileprivate func covers(_ declared: PixelSize) -> Bool { width >= declared.width && height >= declared.height }
}
