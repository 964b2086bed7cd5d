internal import CTurboJPEG

/// A TurboJPEG decompressor with exactly one owner.
///
/// A handle is not thread-safe and is unusable after a failed header read, so each photo gets a
/// fresh one; making one costs a few small allocations.
struct Decompressor: ~Copyable {
    let handle: tjhandle

    init(file: String) throws(ImagePrepError) {
        guard let handle = tjInitDecompress() else {
            throw .corruptJPEG(file: file, detail: "libjpeg-turbo could not start a decompressor")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// What libjpeg-turbo said last, recognised and put in our words. (TurboJPEG's own flag for
    /// whether it was a warning is not used: see `LibjpegMessage`.)
    var lastMessage: LibjpegMessage { LibjpegMessage(String(cString: tjGetErrorStr2(handle))) }
}

/// What TurboJPEG reads from the JPEG's headers.
struct JPEGHeader: Equatable, Sendable {
    enum ColorModel: Equatable, Sendable {
        case ycbcr
        case gray
        /// Three components stored as RGB (Adobe transform 0).
        case rgb
        /// Four components: CMYK, or YCCK that libjpeg-turbo turns into CMYK.
        case cmyk
    }

    let size: PixelSize
    let colorModel: ColorModel
    /// Nil when the subsampling is one that TurboJPEG's planar output does not handle.
    let subsampling: ChromaSubsampling?
}

/// Decodes JPEG data into planes through libjpeg-turbo, using its DCT-domain scaling.
enum JPEGDecoder {
    /// The DCT scales worth using: 1/2, 1/4 and 1/8 have SIMD paths in libjpeg-turbo 2.1, the
    /// other eighths do not and are slower than a full decode.
    static let scaleDenominators = [8, 4, 2]

    /// The size TurboJPEG produces for `size` at scale 1/`denominator` (it rounds up).
    static func scaled(_ size: PixelSize, by denominator: Int) -> PixelSize {
        PixelSize(
            width: (size.width + denominator - 1) / denominator,
            height: (size.height + denominator - 1) / denominator)
    }

    /// The DCT scale to decode at: the smallest of 1/8, 1/4 and 1/2 whose result still covers
    /// `target`, else the full size.
    ///
    /// - Parameter tolerance: speed mode; also accept a scale whose long edge falls at most this
    ///   fraction short of the target, to be used without resampling.
    static func scaleDenominator(from source: PixelSize, to target: PixelSize, tolerance: Double) -> Int {
        for denominator in scaleDenominators {
            let candidate = scaled(source, by: denominator)
            if candidate.width >= target.width, candidate.height >= target.height { return denominator }
            if tolerance > 0, Double(candidate.longEdge) >= Double(target.longEdge) * (1 - tolerance) {
                return denominator
            }
        }
        return 1
    }

    static func readHeader(
        _ bytes: UnsafeRawBufferPointer, decompressor: borrowing Decompressor, file: String
    ) throws(ImagePrepError) -> JPEGHeader {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsamp: Int32 = 0
        var colorspace: Int32 = 0
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // TurboJPEG 2.1 returns -1 for a warning in the headers too (garbage between two
        // segments); the header is read all the same, and the decode reports the warning.
        let status = tjDecompressHeader3(
            decompressor.handle, base, UInt(bytes.count), &width, &height, &subsamp, &colorspace)
        // It fails too for a sampling it has no TJSAMP_ value for (a CMYK photo sampled 2x1,
        // 1x2, 1x1, 1x1), after it read the size and colour space: libjpeg, under the whole-image
        // decode, takes any sampling, as vips and ImageMagick do. That failure is known by what
        // it leaves set, not by its text.
        let isOnlySamplingUnknown = subsamp < 0 && width > 0 && height > 0 && colorspace >= 0
        if status != 0, !isOnlySamplingUnknown {
            let message = decompressor.lastMessage
            guard message.isWarning, width > 0, height > 0 else {
                throw .corruptJPEG(file: file, detail: message.clause)
            }
        }

        let model: JPEGHeader.ColorModel
        switch colorspace {
        case Int32(TJCS_GRAY.rawValue): model = .gray
        case Int32(TJCS_RGB.rawValue): model = .rgb
        case Int32(TJCS_CMYK.rawValue), Int32(TJCS_YCCK.rawValue): model = .cmyk
        default: model = .ycbcr
        }
        let subsampling: ChromaSubsampling?
        switch subsamp {
        case Int32(TJSAMP_444.rawValue), Int32(TJSAMP_GRAY.rawValue): subsampling = .full
        case Int32(TJSAMP_422.rawValue): subsampling = ChromaSubsampling(horizontal: 2, vertical: 1)
        case Int32(TJSAMP_420.rawValue): subsampling = .quarter
        case Int32(TJSAMP_440.rawValue): subsampling = ChromaSubsampling(horizontal: 1, vertical: 2)
        case Int32(TJSAMP_411.rawValue): subsampling = ChromaSubsampling(horizontal: 4, vertical: 1)
        default: subsampling = nil
        }
        return JPEGHeader(
            size: PixelSize(width: Int(width), height: Int(height)), colorModel: model, subsampling: subsampling)
    }

    /// How to decode one photo.
    struct Options {
        /// Decode at 1/`scaleDenominator` of the stored size (1, 2, 4 or 8).
        var scaleDenominator: Int
        var acceptsIncompleteData: Bool
        /// The photo's CMYK profile, used to turn CMYK pixels into RGB.
        var cmykProfile: ICCProfile?
    }

    /// What a decode wrote into the image.
    ///
    /// The rule every decoder keeps, so that no photo shows the pixels of the one before it in a
    /// reused workspace: it reports how many rows, from the top, it wrote; the pipeline fills the
    /// rows below with `PlanarImage.missingSample` grey (the grey libjpeg gives missing data)
    /// before anything reads them. TurboJPEG writes every row or fails, so its decodes report
    /// the full height; a strip-wise decoder that stops early reports where it stopped.
    struct Outcome {
        /// Rows of the decoded image written from the top; the rest are filled grey.
        var rowsWritten: Int
        /// Problems that lost no pixels, or (with `acceptsIncompleteData`) pixels libjpeg filled in.
        var warnings: [PhotoWarning]
    }

    /// Decodes the whole image at the chosen DCT scale into `image`.
    ///
    /// YCbCr and gray JPEGs decode straight into planes, which skips libjpeg-turbo's colour
    /// conversion and chroma upsampling and lets the resampler work on a quarter of the chroma.
    /// RGB and CMYK JPEGs, and subsamplings the planar path cannot take, decode to interleaved
    /// pixels in `scratch` and become 4:4:4 planes.
    ///
    /// - Returns: the rows written and the warnings.
    /// - Throws: `.incompleteImageData` when pixels are missing and they are not accepted;
    ///   `.corruptJPEG` or `.tooManyScans` when libjpeg stopped before the last row, whether or
    ///   not incomplete data is accepted.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, header: JPEGHeader, options: Options, decompressor: borrowing Decompressor,
        into image: PlanarImage, scratch: ScratchBuffer, file: String
    ) throws(ImagePrepError) -> Outcome {
        let size = scaled(header.size, by: options.scaleDenominator)
        let jpeg = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if let subsampling = header.subsampling, header.colorModel == .ycbcr || header.colorModel == .gray {
            try image.reshape(size: size, isGray: header.colorModel == .gray, subsampling: subsampling, file: file)
            let warnings = try runToTheEnd(
                { flags in decodePlanes(bytes, size: size, image: image, decompressor: decompressor, flags: flags) },
                bytes: bytes, decompressor: decompressor, acceptsIncompleteData: options.acceptsIncompleteData,
                file: file)
            image.replicateLumaEdges()
            return Outcome(rowsWritten: size.height, warnings: warnings)
        }

        let format: TJPF
        switch header.colorModel {
        case .cmyk: format = TJPF_CMYK
        case .gray: format = TJPF_GRAY
        case .rgb, .ycbcr: format = TJPF_RGB
        }
        let channels = format == TJPF_CMYK ? 4 : (format == TJPF_GRAY ? 1 : 3)
        let pixelCount = size.width * size.height
        // CMYK is decoded behind the RGB it becomes, so one buffer holds both.
        scratch.reserve(pixelCount * (format == TJPF_CMYK ? 7 : channels))
        let decoded = format == TJPF_CMYK ? scratch.pointer + pixelCount * 3 : scratch.pointer
        var warnings = try runToTheEnd(
            { flags in
                tjDecompress2(
                    decompressor.handle, jpeg, UInt(bytes.count), decoded, Int32(size.width), 0, Int32(size.height),
                    Int32(format.rawValue), flags)
            }, bytes: bytes, decompressor: decompressor, acceptsIncompleteData: options.acceptsIncompleteData,
            file: file)
        try image.reshape(size: size, isGray: format == TJPF_GRAY, subsampling: .full, file: file)
        if format == TJPF_GRAY {
            image.planes[0].pixels.update(from: decoded, count: pixelCount)
            return Outcome(rowsWritten: size.height, warnings: warnings)
        }
        if format == TJPF_CMYK {
            // Inverted (0 is full ink) with or without an Adobe APP14 segment: Photoshop's way,
            // which every four-channel JPEG in the wild follows, and which vips, ImageMagick
            // and Pillow assume for one without the segment too.
            let warning = ColorConverter.convertCMYK(
                decoded, into: scratch.pointer, count: pixelCount, isInverted: true, profile: options.cmykProfile)
            warnings += warning.map { [$0] } ?? []
        }
        let compressor = try Compressor(file: file)
        try JPEGEncoder.convert(rgb: scratch.pointer, into: image, compressor: compressor, file: file)
        return Outcome(rowsWritten: size.height, warnings: warnings)
    }

    private static func decodePlanes(
        _ bytes: UnsafeRawBufferPointer, size: PixelSize, image: PlanarImage, decompressor: borrowing Decompressor,
        flags: Int32
    ) -> Int32 {
        let planes = image.activePlanes
        var pointers: [UnsafeMutablePointer<UInt8>?] = planes.map { $0.pixels }
        var strides: [Int32] = planes.map { Int32($0.width) }
        return pointers.withUnsafeMutableBufferPointer { pointers in
            strides.withUnsafeMutableBufferPointer { strides in
                tjDecompressToYUVPlanes(
                    decompressor.handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                    pointers.baseAddress, Int32(size.width), strides.baseAddress, Int32(size.height), flags)
            }
        }
    }

    /// Runs a decode to the last row, or throws.
    ///
    /// First with TurboJPEG stopping at the first warning: a clean photo decodes in this one run,
    /// and one whose first complaint loses pixels is refused at once unless that is accepted.
    /// Otherwise `DamageSurvey` says what libjpeg really met, every warning and whether it
    /// stopped, and TurboJPEG runs again to the end for the pixels. Should TurboJPEG still stop
    /// where libjpeg did not, its text, never its flag, says so.
    private static func runToTheEnd(
        _ run: (Int32) -> Int32, bytes: UnsafeRawBufferPointer, decompressor: borrowing Decompressor,
        acceptsIncompleteData: Bool, file: String
    ) throws(ImagePrepError) -> [PhotoWarning] {
        let flags = Int32(TJFLAG_LIMITSCANS)
        if run(flags | Int32(TJFLAG_STOPONWARNING)) == 0 { return [] }
        let first = decompressor.lastMessage
        guard first.isWarning else { throw first.error(file: file) }
        if first.effect == .losesPixels, !acceptsIncompleteData { throw first.error(file: file) }

        let survey = DamageSurvey(bytes)
        if let stop = survey.stop { throw stop.error(file: file) }
        let messages = survey.warnings.isEmpty ? [first] : survey.warnings
        if let lost = messages.first(where: { $0.effect == .losesPixels }), !acceptsIncompleteData {
            throw lost.error(file: file)
        }
        if run(flags) != 0 {
            let last = decompressor.lastMessage
            guard last.isWarning else { throw last.error(file: file) }
        }
        return messages.map(\.warning)
    }
}
