internal import CRaw

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A camera raw or DNG file. Its largest embedded JPEG preview is prepared when that is at least
/// the upload's size (what the camera rendered, through the JPEG path), else its sensor data is
/// rendered by LibRaw, at half size when that is still large enough. `cameraRawPixels` says which.
///
/// LibRaw allocates what a file declares, and cannot be bounded from outside: the sizes it read
/// from the header are checked against the pixel limit and `DecodeMemoryBudget` before it unpacks
/// anything. The pixels stay as stored; the raw's EXIF (`RawEXIF`: rebuilt from its own
/// directories, a CR3's `CMT` boxes, or a RAF preview's APP1) is carried with its Orientation
/// kept, which turns the stripped copies; a raw without one is turned by LibRaw's orientation.
struct RawSource: PhotoSource {
    let context: PreparationContext

    /// Raw formats that are not TIFF structures, by their first bytes.
    static let signatures: [(offset: Int, bytes: [UInt8])] = [
        (0, Array("FUJIFILMCCD-RAW".utf8)),  // RAF
        (4, Array("ftypcrx ".utf8)),  // CR3
        (0, [0x49, 0x49, 0x52, 0x4F]), (0, [0x49, 0x49, 0x52, 0x53]), (0, [0x4D, 0x4D, 0x4F, 0x52]),  // ORF
        (0, [0x49, 0x49, 0x55, 0x00]),  // RW2, RWL
        (0, Array("FOVb".utf8)),  // X3F
        (0, [0x00, 0x4D, 0x52, 0x4D]),  // MRW
        (6, Array("HEAPCCDR".utf8)),  // CRW
    ]

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let structure = TIFFStructure(bytes), let ifd0 = structure.entries(ofIFDAt: structure.ifd0Offset) {
            return structure.cameraRawKind(ifd0: ifd0) != nil
        }
        return signatures.contains { signature in
            bytes.count >= signature.offset + signature.bytes.count
                && bytes[signature.offset..<(signature.offset + signature.bytes.count)].elementsEqual(signature.bytes)
        }
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        let start = clock.now
        let structure = TIFFStructure(bytes)
        let exif = RawEXIF.block(of: bytes)
        timings.metadata += clock.now - start
        if let structure, let preview = RawPreviews.largest(in: structure), preview.longEdge >= configuration.maxEdge {
            return try previewPhoto(preview.bytes, exif: exif, turn: nil)
        }
        let handle = try LibRawHandle(bytes, file: file)
        // A preview whose declared length runs past the file's end is read short into LibRaw's
        // buffer: its tail is malloc's fill, never an earlier photo's bytes.
        if structure == nil, FreshMemory.filled({ libraw_unpack_thumb(handle.raw) }) == LIBRAW_SUCCESS.rawValue,
            craw_thumbnail_is_jpeg(handle.raw) != 0
        {
            let thumbnail = UnsafeRawBufferPointer(
                start: craw_thumbnail_bytes(handle.raw), count: Int(craw_thumbnail_length(handle.raw)))
            if let size = JPEGFrameSize.of(thumbnail), max(size.width, size.height) >= configuration.maxEdge {
                return try previewPhoto(thumbnail, exif: exif, turn: Self.orientation(handle))
            }
        }
        return try rawPhoto(handle, exif: exif)
    }

    /// The preview through the JPEG path; the raw's own EXIF when the preview has none, and
    /// when that has no Orientation, LibRaw's (`turn`) turns the upload.
    private func previewPhoto(
        _ jpeg: UnsafeRawBufferPointer, exif: [UInt8]?, turn: Orientation?
    ) throws(ImagePrepError) -> DecodedPhoto {
        var decoded = try JPEGSource(context: context).decode(jpeg)
        decoded.cameraRawPixels = .embeddedPreview
        guard SegmentWalker.walk(jpeg).exifSegment(in: jpeg) == nil else { return decoded }
        if let exif {
            let (segment, exifWarnings) = exif.withUnsafeBytes {
                EmbeddedEXIF.read($0, into: &decoded.metadata, uploadSize: decoded.uploadSize)
            }
            warnings += exifWarnings
            decoded.uploadSegments.insert(contentsOf: segment.map { [$0] } ?? [], at: 0)
            decoded.strippedTurn = decoded.metadata.orientation ?? .up
        }
        Self.turnUpload(&decoded, by: turn)
        return decoded
    }

    /// LibRaw's orientation turns the upload of a raw whose EXIF gave none.
    private static func turnUpload(_ decoded: inout DecodedPhoto, by turn: Orientation?) {
        guard decoded.metadata.orientation == nil, let turn, turn != .up else { return }
        decoded.uploadTurn = turn
        decoded.metadata.orientation = turn
    }

    /// The sensor data rendered by LibRaw to 8-bit sRGB, at half size when that is enough.
    private func rawPhoto(_ handle: borrowing LibRawHandle, exif: [UInt8]?) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        let raw = handle.raw
        let size = PixelSize(width: Int(craw_width(raw)), height: Int(craw_height(raw)))
        let stored = PixelSize(width: Int(craw_raw_width(raw)), height: Int(craw_raw_height(raw)))
        try context.checkPixelLimit(size)
        try context.checkPixelLimit(stored)
        let uploadSize = size.fitting(longEdge: configuration.maxEdge)
        // LibRaw's half size takes a mosaic's 2x2 cells as one pixel; other raw data stays whole.
        let isMosaic = craw_filters(raw) != 0
        let isHalf = isMosaic && size.width / 2 >= uploadSize.width && size.height / 2 >= uploadSize.height
        let rendered = isHalf ? PixelSize(width: size.width / 2, height: size.height / 2) : size
        // The sensor data (16 bits a photosite, or four 16-bit samples a pixel when it is not a
        // mosaic), the 16-bit picture LibRaw renders into, and the 8-bit one it hands over.
        let sensorBytes = Int.saturatingProduct(stored.width, stored.height, isMosaic ? 2 : 8)
        let pictureBytes = Int.saturatingProduct(rendered.width, rendered.height, 8 + 3)
        try context.checkDecodeMemory(sensorBytes > Int.max - pictureBytes ? .max : sensorBytes + pictureBytes)
        craw_set_output(raw, isHalf ? 1 : 0)
        var metadata = PhotoMetadata(originalSize: size)
        var uploadSegments: [Data] = []
        if let exif {
            let (segment, exifWarnings) = exif.withUnsafeBytes {
                EmbeddedEXIF.read($0, into: &metadata, uploadSize: uploadSize)
            }
            warnings += exifWarnings
            uploadSegments += segment.map { [$0] } ?? []
        }
        timings.metadata += clock.now - start

        start = clock.now
        try cancellation.check(file: file)
        // LibRaw's loaders may stop short of the buffer they were given (a damaged or unusual
        // raw), leaving what malloc handed out: cleared, so that no earlier photo shows through.
        var status = FreshMemory.filled { libraw_unpack(raw) }
        if status == LIBRAW_SUCCESS.rawValue {
            try cancellation.check(file: file)
            status = FreshMemory.filled { libraw_dcraw_process(raw) }
        }
        guard status == LIBRAW_SUCCESS.rawValue else {
            throw .corruptRaw(file: file, detail: LibRawHandle.reason(status))
        }
        var imageStatus: Int32 = 0
        guard let image = libraw_dcraw_make_mem_image(raw, &imageStatus) else {
            throw .corruptRaw(file: file, detail: LibRawHandle.reason(imageStatus))
        }
        defer { libraw_dcraw_clear_mem(image) }
        let picture = image.pointee
        let pictureSize = PixelSize(width: Int(picture.width), height: Int(picture.height))
        guard picture.bits == 8, picture.colors == 3 || picture.colors == 1, pictureSize.width > 0,
            pictureSize.height > 0,
            Int(picture.data_size) >= pictureSize.width * pictureSize.height * Int(picture.colors)
        else { throw .corruptRaw(file: file, detail: "LibRaw rendered no 8-bit picture") }
        let upload = try RowStreamUpload(
            context: context, sourceSize: pictureSize, uploadSize: pictureSize.fitting(longEdge: configuration.maxEdge),
            layout: picture.colors == 3 ? .rgb : .gray)
        try withUnsafePointer(to: &image.pointee.data) { first throws(ImagePrepError) in
            let pixels = UnsafeRawPointer(first).assumingMemoryBound(to: UInt8.self)
            let rowBytes = pictureSize.width * Int(picture.colors)
            for y in 0..<pictureSize.height where upload.needsRows {
                if y % 256 == 0 { try cancellation.check(file: file) }
                upload.push(pixels + y * rowBytes)
            }
        }
        if handle.report.pointee.dataErrors > 0 {
            let damage = "LibRaw reported damage in its raw data"
            guard configuration.acceptsIncompleteData else { throw .incompleteImageData(file: file, detail: damage) }
            warnings.append(PhotoWarning(.incompleteImageData, damage + "."))
        }
        workspace.lastDecode = .init(size: pictureSize, isStripWise: true)
        let planes = upload.finish()
        timings.decode += clock.now - start
        var decoded = DecodedPhoto(
            metadata: metadata, uploadSize: upload.uploadSize,
            extent: (Double(upload.uploadSize.width), Double(upload.uploadSize.height)),
            strippedTurn: metadata.orientation ?? .up, profile: nil, uploadSegments: uploadSegments, comments: [],
            stripUpload: planes)
        Self.turnUpload(&decoded, by: Self.orientation(handle))
        decoded.cameraRawPixels = .rawData
        return decoded
    }

    /// LibRaw's `flip` (dcraw's) as an EXIF orientation.
    private static func orientation(_ handle: borrowing LibRawHandle) -> Orientation? {
        [0: .up, 3: .down, 5: .left, 6: .right][craw_flip(handle.raw)]
    }
}
