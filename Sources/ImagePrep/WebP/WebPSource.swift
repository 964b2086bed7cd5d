internal import CWebP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A WebP file (lossy, lossless, with alpha, animated): its first frame decoded by libwebp
/// straight at the upload's size where the picture is larger (libwebp's own scaling, so that the
/// decoded pixels are never more than the upload's), drawn at its place on the canvas, composited
/// over `Configuration.background` where it has alpha, a row at a time into the upload.
///
/// Its EXIF chunk is read as a JPEG's and carried with its Orientation (which turns the stripped
/// copies), its ICCP chunk carried and used for the stripped copies' sRGB, its XMP chunk carried
/// as an XMP APP1 segment. An animated file gives a warning that only its first frame is carried.
struct WebPSource: PhotoSource {
    let context: PreparationContext

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: Array("RIFF".utf8)) && bytes.count >= 12 && bytes.hasPrefix(Array("WEBP".utf8), at: 8..<12)
    }

    /// The canvas a VP8X chunk right after the RIFF header declares (24 bits a side, less one).
    static func extendedCanvas(_ bytes: UnsafeRawBufferPointer) -> PixelSize? {
        let reader = ByteReader(bytes, byteOrder: .littleEndian)
        guard bytes.count >= 30, bytes.hasPrefix(Array("VP8X".utf8), at: 12..<16),
            let width = reader.uint(at: 24, size: 3),
            let height = reader.uint(at: 27, size: 3)
        else { return nil }
        return PixelSize(width: Int(width) + 1, height: Int(height) + 1)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        // A VP8X canvas first: libwebp calls one of more than 2^32 pixels, or a still picture's
        // that its frame does not fill, damaged, where its size is the reason to refuse it.
        if let canvas = Self.extendedCanvas(bytes) { try context.checkPixelLimit(canvas) }
        // The VP8X, VP8 or VP8L header's size, before the demuxer or the decoder allocates.
        var features = WebPBitstreamFeatures()
        let status = cwebp_features(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        guard status == VP8_STATUS_OK else { throw WebPDecoding.error(status, file: file) }
        let declared = PixelSize(width: Int(features.width), height: Int(features.height))
        guard declared.width > 0, declared.height > 0 else {
            throw .corruptWebP(file: file, detail: "its header gives a width or a height of 0")
        }
        try context.checkPixelLimit(declared)
        let container = try WebPContainer(bytes, file: file)
        let canvas = container.canvas
        try context.checkPixelLimit(canvas)
        guard let frame = container.firstFrame else {
            throw .corruptWebP(file: file, detail: "it holds no frame")
        }
        let uploadSize = canvas.fitting(longEdge: configuration.maxEdge)
        var metadata = PhotoMetadata(originalSize: canvas)
        var uploadSegments: [Data] = []
        if let exif = container.chunk("EXIF") {
            let (segment, exifWarnings) = EmbeddedEXIF.read(exif, into: &metadata, uploadSize: uploadSize)
            uploadSegments += segment.map { [$0] } ?? []
            warnings += exifWarnings
        }
        // "XMP\0" as some writers name it (exiftool reads it too).
        if let xmp = container.chunk("XMP ") ?? container.chunk("XMP\u{0}") {
            if let segment = XMPSegment.segment(packet: [UInt8](xmp)) {
                uploadSegments.append(segment)
            } else {
                warnings.append(
                    PhotoWarning(
                        .metadata, "the XMP packet is too large for one APP1 segment, so the upload does not carry it.")
                )
            }
        }
        let profile = container.chunk("ICCP").map { ICCProfile(bytes: Array($0)) }
        if let (segments, warning) = profile?.uploadSegments {
            uploadSegments += segments
            warnings += warning.map { [$0] } ?? []
        }
        if container.frameCount > 1 {
            warnings.append(
                PhotoWarning(.animation, "the WebP is animated; only its first frame is carried, as a viewer shows it.")
            )
        }
        timings.metadata += clock.now - start

        start = clock.now
        let decoding = WebPDecoding(canvas: canvas, frame: frame, uploadSize: uploadSize, context: context)
        let upload = try decoding.pushRows(hasAlpha: features.has_alpha != 0 || container.frameCount > 1)
        timings.decode += clock.now - start
        workspace.lastDecode = .init(size: decoding.decodedCanvas, isStripWise: true)
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize, extent: (Double(uploadSize.width), Double(uploadSize.height)),
            strippedTurn: metadata.orientation ?? .up, profile: profile, uploadSegments: uploadSegments, comments: [],
            stripUpload: upload)
    }
}
