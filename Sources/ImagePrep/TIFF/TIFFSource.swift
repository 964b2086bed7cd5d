internal import CTIFF

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A TIFF or BigTIFF file's first page, decoded by libtiff from the bytes in memory, a scanline or
/// a row of tiles at a time into the upload (`RowStreamUpload`), never held whole. Its upload keeps
/// the pixels as stored, with the EXIF built from its own directories (`TIFFEXIFBlock`,
/// Orientation kept), its XMP and ICC profile. A camera raw or DNG, also a TIFF, is refused in words.
struct TIFFSource: PhotoSource {
    let context: PreparationContext

    static let iccProfileTag: UInt16 = 34675
    static let xmpTag: UInt16 = 700

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool { TIFFStructure.hasSignature(bytes) }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        guard let structure = TIFFStructure(bytes) else {
            throw .corruptTIFF(file: file, detail: "its header is damaged")
        }
        guard let ifd0 = structure.entries(ofIFDAt: structure.ifd0Offset) else {
            throw .corruptTIFF(file: file, detail: "its first directory of tags lies outside the file")
        }
        if let raw = structure.cameraRawKind(ifd0: ifd0) {
            throw .unsupportedTIFF(file: file, reason: "it is \(raw), which this version does not prepare")
        }
        let handle = try TIFFHandle(bytes, file: file)
        guard let layout = TIFFImageLayout(handle) else {
            throw .corruptTIFF(file: file, detail: "its first directory gives no image size")
        }
        guard layout.size.width > 0, layout.size.height > 0 else {
            throw .corruptTIFF(file: file, detail: "its first directory gives a size of \(layout.size)")
        }
        try context.checkPixelLimit(layout.size)
        if let problem = RowStreamUpload.widthProblem(layout.size) {
            throw .unsupportedTIFF(file: file, reason: problem)
        }
        // libtiff would count pages by walking them all; the link after IFD0 is all this needs.
        if let next = structure.nextIFDOffset(afterIFDAt: structure.ifd0Offset), next != structure.ifd0Offset {
            warnings.append(PhotoWarning(.imageData, "the file holds more than one page; only the first is prepared."))
        }
        let uploadSize = layout.size.fitting(longEdge: configuration.maxEdge)
        var metadata = PhotoMetadata(originalSize: layout.size)
        var uploadSegments: [Data] = []
        if let block = TIFFEXIFBlock.block(of: structure, ifd0: ifd0) {
            let (segment, exifWarnings) = block.withUnsafeBytes {
                EmbeddedEXIF.read($0, into: &metadata, uploadSize: uploadSize)
            }
            warnings += exifWarnings
            uploadSegments += segment.map { [$0] } ?? []
        }
        if let xmp = ifd0.first(tag: Self.xmpTag).flatMap(structure.data), let segment = Self.xmpSegment(xmp) {
            uploadSegments.append(segment)
        }
        let profile = ifd0.first(tag: Self.iccProfileTag).flatMap(structure.data).map { ICCProfile(bytes: Array($0)) }
        let isCMYK = layout.photometric == PHOTOMETRIC_SEPARATED
        timings.metadata += clock.now - start

        start = clock.now
        let upload = try RowStreamUpload(
            context: context, sourceSize: layout.size, uploadSize: uploadSize,
            layout: layout.isRowConvertible ? layout.pushedLayout : .rgba)
        let reader = TIFFRowReader(layout: layout, upload: upload, cancellation: cancellation, file: file)
        var isComplete: Bool
        if layout.isRowConvertible {
            let read = try reader.readRows(handle, cmykProfile: isCMYK ? profile : nil)
            isComplete = read.isComplete
            warnings += read.warning.map { [$0] } ?? []
        } else if let read = try reader.readRGBABands(handle) {
            isComplete = read
        } else {
            throw .unsupportedTIFF(file: file, reason: Self.unsupportedReason(layout))
        }
        try cancellation.check(file: file)
        if !isComplete || upload.needsRows {
            let problem = handle.errorCount > 0 ? handle.problem : "its image data ends early"
            guard configuration.acceptsIncompleteData, upload.nextRow > 0 else {
                throw .incompleteImageData(file: file, detail: problem)
            }
            warnings.append(
                PhotoWarning(
                    .incompleteImageData,
                    "\(problem); rows \(upload.nextRow + 1) to \(layout.size.height) repeat the last row read."))
            upload.fillRemainingRows()
        }
        workspace.lastDecode = .init(size: layout.size, isStripWise: true)
        let image = upload.finish()
        timings.decode += clock.now - start

        if !isCMYK, let segments = profile?.jpegSegments {  // A CMYK profile does not describe the RGB we write.
            uploadSegments += segments
        }
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize, extent: (Double(uploadSize.width), Double(uploadSize.height)),
            strippedTurn: metadata.orientation ?? .up, profile: isCMYK ? nil : profile, uploadSegments: uploadSegments,
            comments: [], stripUpload: image)
    }

    /// The XMP packet as a JPEG carries it: APP1 with Adobe's namespace, when it fits one segment.
    static func xmpSegment(_ packet: UnsafeRawBufferPointer) -> Data? {
        let length = 2 + GainMapMetadata.xmpSignature.count + packet.count
        guard length <= 0xFFFF else { return nil }
        var segment = Data([0xFF, JPEGSegment.app1, UInt8(length >> 8), UInt8(length & 0xFF)])
        segment.append(contentsOf: GainMapMetadata.xmpSignature)
        segment.append(contentsOf: packet)
        return segment
    }

    /// Why libtiff's readers take neither this photometric nor this sample layout, in words.
    private static func unsupportedReason(_ layout: TIFFImageLayout) -> String {
        let kinds: [Int32: String] = [
            PHOTOMETRIC_MASK: "a transparency mask", PHOTOMETRIC_ICCLAB: "ICC L*a*b*", PHOTOMETRIC_ITULAB: "ITU L*a*b*",
            PHOTOMETRIC_LOGL: "LogL", PHOTOMETRIC_LOGLUV: "LogLuv", PHOTOMETRIC_CIELAB: "CIE L*a*b*",
            PHOTOMETRIC_SEPARATED: "separated colour", PHOTOMETRIC_YCBCR: "YCbCr",
        ]
        let kind = kinds[layout.photometric] ?? "photometric interpretation \(layout.photometric)"
        return "its pixels are \(kind) with \(layout.samplesPerPixel) samples of \(layout.bitsPerSample) bits, "
            + "which libtiff cannot turn into RGB"
    }
}
