internal import CJXL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JPEG XL file (a bare codestream or the ISO container, a JPEG recompressed into one
/// included: its pixels are decoded), by libjxl from the bytes in memory, on its own threads
/// when the photo may use two cores (`decodingThreads`): the rows come through its image-out
/// callback as its groups are decoded and go into the upload (`JXLRowAssembler`,
/// `RowStreamUpload`), never held whole. An animation gives its first frame.
///
/// The pixels stay as stored and the upload is turned by the codestream's own orientation,
/// which the format says overrides the EXIF's, so the carried Orientation is 1. The container's
/// `Exif` box is read and carried like a PNG's, its `xml ` box as the upload's XMP.
struct JXLSource: PhotoSource {
    let context: PreparationContext

    static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    /// An ICC profile larger than this is not read: no real one comes near it.
    static let maxProfileSize = 4 << 20

    /// libjxl's worker threads: two when the photo may use two cores (one photo while someone
    /// waits, as HEIF's decode does), none in a batch that already keeps every core busy with a
    /// photo each, which more threads would only oversubscribe. The rows come out the same
    /// either way (`JXLRowAssembler` puts them in order).
    static func decodingThreads(_ configuration: PhotoPreparer.Configuration) -> Int {
        configuration.splitsWorkAcrossCores ? 2 : 0
    }

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: codestreamSignature) || bytes.starts(with: containerSignature)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        let start = clock.now
        let threads = Self.decodingThreads(configuration)
        let decoder = try JXLDecoder(file: file, threads: threads)
        let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FULL_IMAGE.rawValue
        guard JxlDecoderSubscribeEvents(decoder.pointer, Int32(events)) == JXL_DEC_SUCCESS,
            JxlDecoderSetKeepOrientation(decoder.pointer, JXL_TRUE) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder.pointer, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
                == JXL_DEC_SUCCESS
        else { throw .corruptJXL(file: file, detail: "libjxl would not take it") }
        JxlDecoderCloseInput(decoder.pointer)

        var info = JxlBasicInfo()
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var profile: ICCProfile?
        var assembler: JXLRowAssembler?
        var size = PixelSize(width: 0, height: 0)
        var uploadSize = size
        decoding: while true {
            let status = JxlDecoderProcessInput(decoder.pointer)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(decoder.pointer, &info) == JXL_DEC_SUCCESS else {
                    throw .corruptJXL(file: file, detail: "its image header is damaged")
                }
                size = PixelSize(width: Int(info.xsize), height: Int(info.ysize))
                try context.checkPixelLimit(size)
                // libjxl 0.7 holds a frame whole, 32 bits a sample of every channel, and 3 bytes a
                // pixel more (measured: 14.8 bytes a pixel for a 27 MP RGB photo, VarDCT or modular).
                let channels = Int(info.num_color_channels) + Int(info.num_extra_channels)
                try context.checkDecodeMemory(.saturatingProduct(size.width, size.height, channels * 4 + 3))
                uploadSize = size.fitting(longEdge: configuration.maxEdge)
                format.num_channels = info.num_color_channels == 1 ? 1 : 3
                if info.alpha_bits > 0 { format.num_channels += 1 }
                if info.have_animation == JXL_TRUE {
                    warnings.append(
                        PhotoWarning(.imageData, "the file is an animation; only its first frame is prepared."))
                }
            case JXL_DEC_COLOR_ENCODING:
                profile = dataProfile(
                    decoder, isGray: info.num_color_channels == 1, usesOriginal: info.uses_original_profile)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                let upload = try RowStreamUpload(
                    context: context, sourceSize: size, uploadSize: uploadSize,
                    layout: RowStreamUpload.PixelLayout(rawValue: Int(format.num_channels))!)
                let rows = JXLRowAssembler(upload: upload, channels: Int(format.num_channels))
                assembler = rows
                let callback: JxlImageOutCallback = { opaque, x, y, count, pixels in
                    guard let opaque, let pixels else { return }
                    Unmanaged<JXLRowAssembler>.fromOpaque(opaque).takeUnretainedValue()
                        .receive(x: x, y: y, count: count, pixels: pixels)
                }
                guard
                    JxlDecoderSetImageOutCallback(
                        decoder.pointer, &format, callback, Unmanaged.passUnretained(rows).toOpaque())
                        == JXL_DEC_SUCCESS
                else { throw .corruptJXL(file: file, detail: "libjxl cannot give its pixels as 8-bit samples") }
            case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                break decoding
            case JXL_DEC_NEED_MORE_INPUT:
                guard assembler != nil else {
                    throw .corruptJXL(file: file, detail: "the file ends before its image header does")
                }
                break decoding
            default:
                guard assembler != nil else { throw .corruptJXL(file: file, detail: "its header is damaged") }
                break decoding
            }
        }
        try cancellation.check(file: file)
        guard let assembler else { throw .corruptJXL(file: file, detail: "it holds no image") }
        withExtendedLifetime(decoder) {}
        let upload = assembler.upload
        if upload.needsRows {
            let problem =
                assembler.overflowed
                ? "its groups come in an order that would need more than \(assembler.maxPendingRows) rows held"
                : "libjxl could not decode all of its image data"
            guard configuration.acceptsIncompleteData, upload.nextRow > 0, !assembler.overflowed else {
                throw .incompleteImageData(file: file, detail: problem)
            }
            warnings.append(
                PhotoWarning(
                    .incompleteImageData,
                    "\(problem); rows \(upload.nextRow + 1) to \(size.height) repeat the last row read."))
            upload.fillRemainingRows()
        }
        workspace.lastDecode = .init(size: size, isStripWise: true, decodingThreads: threads)
        let image = upload.finish()
        timings.decode += clock.now - start

        let metadataStart = clock.now
        var metadata = PhotoMetadata(originalSize: size)
        var uploadSegments: [Data] = []
        if bytes.starts(with: Self.containerSignature) {
            uploadSegments = containerSegments(bytes, metadata: &metadata, uploadSize: uploadSize)
        }
        let turn = Orientation(rawValue: Int(info.orientation.rawValue)) ?? .up
        metadata.orientation = turn
        uploadSegments += profile?.jpegSegments ?? []
        timings.metadata += clock.now - metadataStart
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize, extent: (Double(uploadSize.width), Double(uploadSize.height)),
            uploadTurn: turn, profile: profile, uploadSegments: uploadSegments, comments: [], stripUpload: image)
    }

    /// The profile of the pixels libjxl gives: the file's own, or for a lossy (XYB) image whose
    /// original colour space has no enumerated form, sRGB, which libjxl is asked to convert to.
    private func dataProfile(_ decoder: borrowing JXLDecoder, isGray: Bool, usesOriginal: Int32) -> ICCProfile? {
        if usesOriginal == JXL_FALSE {
            var srgb = JxlColorEncoding()
            srgb.color_space = isGray ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB
            srgb.white_point = JXL_WHITE_POINT_D65
            srgb.primaries = JXL_PRIMARIES_SRGB
            srgb.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
            srgb.rendering_intent = JXL_RENDERING_INTENT_PERCEPTUAL
            _ = JxlDecoderSetPreferredColorProfile(decoder.pointer, &srgb)
        }
        var size = 0
        guard
            JxlDecoderGetICCProfileSize(decoder.pointer, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
            size > 0, size <= Self.maxProfileSize
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard
            JxlDecoderGetColorAsICCProfile(decoder.pointer, nil, JXL_COLOR_PROFILE_TARGET_DATA, &bytes, size)
                == JXL_DEC_SUCCESS
        else { return nil }
        return ICCProfile(bytes: bytes)
    }

    /// The container's `Exif` box (a 4-byte offset, then a TIFF block) read into `metadata` and
    /// carried as APP1, and its `xml ` box carried as the upload's XMP.
    private func containerSegments(
        _ bytes: UnsafeRawBufferPointer, metadata: inout PhotoMetadata, uploadSize: PixelSize
    ) -> [Data] {
        var exif: Data?
        var xmp: Data?
        for box in TopLevelBoxes(bytes) {
            switch box.type {
            case "Exif" where exif == nil:
                guard let offset = ByteReader(box.payload).uint32(at: 0).map(Int.init) else { continue }
                guard offset <= box.payload.count - 4 else {
                    warnings.append(
                        PhotoWarning(.metadata, "the Exif box's offset points past its end; it is not read."))
                    continue
                }
                let (segment, exifWarnings) = EmbeddedEXIF.read(
                    UnsafeRawBufferPointer(rebasing: box.payload[(4 + offset)...]), into: &metadata,
                    uploadSize: uploadSize, settingOrientationUp: true)
                warnings += exifWarnings
                exif = segment
            case "xml " where xmp == nil:
                xmp = TIFFSource.xmpSegment(box.payload)
            case "brob":
                warnings.append(
                    PhotoWarning(.metadata, "a Brotli-compressed metadata box is neither read nor carried."))
            default:
                continue
            }
        }
        return [exif, xmp].compactMap { $0 }
    }
}
