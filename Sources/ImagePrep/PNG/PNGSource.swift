internal import CSPNG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A PNG (APNG included: its default image): decoded by libspng a row at a time straight into
/// the upload (`RowStreamUpload`), transparency composited over the configured background; an
/// interlaced one is decoded whole first, within `interlacedByteLimit`. The upload keeps the
/// pixels as stored, with the eXIf chunk's EXIF (or ImageMagick's raw EXIF text), the iCCP
/// profile and the XMP.
struct PNGSource: PhotoSource {
    let context: PreparationContext

    /// The most bytes an interlaced PNG's whole decoded picture may take (Adam7 gives its rows
    /// pass by pass, so none is whole before the last pass): 64 MP of 8-bit RGBA, 32 MP at 16
    /// bits, so that the decode's peak stays under 400 MB.
    static let interlacedByteLimit = 256 << 20

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: PNGChunkWalk.signature)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        let walk = PNGChunkWalk(bytes)
        guard let spng = SPNGContext(bytes, maxSide: configuration.maxPixels) else {
            throw .outOfMemory(file: file, byteCount: MemoryLayout<Int>.size)
        }
        var header = spng_ihdr()
        let headerCode = spng_get_ihdr(spng.handle, &header)
        if SPNGContext.isSizeLimit(headerCode), let declared = walk.declaredSize {
            try context.checkPixelLimit(declared)
        }
        guard headerCode == 0 else { throw corrupt(headerCode, while: "reading its header") }
        let size = PixelSize(width: Int(header.width), height: Int(header.height))
        try context.checkPixelLimit(size)
        // Reads the chunks up to the image data: a damaged one, or text or a profile past the
        // chunk limits, stops here with libspng's reason.
        var transparency = spng_trns()
        let transparencyCode = spng_get_trns(spng.handle, &transparency)
        guard transparencyCode == 0 || transparencyCode == Int32(SPNG_ECHUNKAVAIL.rawValue) else {
            throw corrupt(transparencyCode, while: "reading the chunks before its image data")
        }
        let format = PNGRowFormat(
            colorType: header.color_type, bitDepth: header.bit_depth, hasTransparency: transparencyCode == 0)
        let isInterlaced = header.interlace_method != 0
        let decodedBytes = size.pixelCount.multipliedReportingOverflow(by: format.decodedPixelBytes)
        if isInterlaced, decodedBytes.overflow || decodedBytes.partialValue > Self.interlacedByteLimit {
            throw .unsupportedPNG(
                file: file,
                reason: "it is interlaced (Adam7) and \(size.pixelCount) pixels, more than the "
                    + "\(Self.interlacedByteLimit / format.decodedPixelBytes) pixels an interlaced PNG of its kind may have, "
                    + "since one is decoded whole")
        }
        if let frames = walk.animationFrames {
            warnings.append(Self.animationWarning(frames: frames, isDefaultImageAFrame: walk.isDefaultImageAFrame))
        }
        timings.metadata += clock.now - start

        start = clock.now
        let uploadSize = size.fitting(longEdge: configuration.maxEdge)
        let upload = try RowStreamUpload(
            context: context, sourceSize: size, uploadSize: uploadSize, layout: format.layout)
        let stop =
            isInterlaced
            ? try decodeInterlaced(spng, size: size, format: format, byteCount: decodedBytes.partialValue, into: upload)
            : try decodeRows(spng, size: size, format: format, into: upload)
        if let stop {
            guard configuration.acceptsIncompleteData else { throw .incompleteImageData(file: file, detail: stop) }
            upload.fillRemainingRows()
            warnings.append(PhotoWarning(.incompleteImageData, stop + "."))
        }
        let image = upload.finish()
        workspace.lastDecode = .init(size: size, isStripWise: !isInterlaced)
        timings.decode += clock.now - start

        start = clock.now
        // The chunks after the image data (an eXIf may be there), when the image data ended cleanly.
        if stop == nil { _ = spng_decode_chunks(spng.handle) }
        var metadata = PhotoMetadata(originalSize: size)
        let carried = PNGMetadata.read(spng, into: &metadata, uploadSize: uploadSize)
        warnings += carried.warnings
        timings.metadata += clock.now - start
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize,
            extent: (Double(uploadSize.width), Double(uploadSize.height)),  // Already resampled.
            strippedTurn: metadata.orientation ?? .up, profile: carried.profile,
            uploadSegments: carried.segments, comments: [], stripUpload: image)
    }

    /// Decodes a non-interlaced PNG row by row (libspng's progressive decode) into `upload`.
    ///
    /// - Returns: nil when every row was decoded, else how much is missing and why; the rows
    ///   missing are then the last one decoded, repeated.
    private func decodeRows(
        _ spng: borrowing SPNGContext, size: PixelSize, format: PNGRowFormat, into upload: RowStreamUpload
    ) throws(ImagePrepError) -> String? {
        let flags = Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)
        let begun = spng_decode_image(spng.handle, nil, 0, format.decodeFormat, flags)
        guard begun == 0 else { throw corrupt(begun, while: "starting its image data") }
        let rowBytes = size.width * format.decodedPixelBytes
        let decoded = workspace.scratch
        decoded.reserve(rowBytes + size.width * format.layout.rawValue)
        let narrowed = decoded.pointer + rowBytes
        for y in 0..<size.height {
            if y % 64 == 0 { try cancellation.check(file: file) }
            let code = spng_decode_row(spng.handle, decoded.pointer, rowBytes)
            guard code == 0 || code == Int32(SPNG_EOI.rawValue) else {
                return "its image data stops with \(size.height - y) of its \(size.height) rows missing "
                    + "(\(SPNGContext.message(code))); they repeat the last row decoded"
            }
            if format.isNarrowed {
                format.narrow(decoded.pointer, width: size.width, into: narrowed)
                upload.push(narrowed)
            } else {
                upload.push(decoded.pointer)
            }
        }
        return nil
    }

    /// Decodes an interlaced PNG whole (its passes fill the picture in), then pushes its rows.
    /// In one call: libspng 0.7.3's progressive decode of an interlaced PNG writes no pixel.
    ///
    /// - Returns: nil when every pass was decoded, else why it stopped; the picture is pushed
    ///   whole all the same, what no pass reached left blank (zero).
    private func decodeInterlaced(
        _ spng: borrowing SPNGContext, size: PixelSize, format: PNGRowFormat, byteCount: Int,
        into upload: RowStreamUpload
    ) throws(ImagePrepError) -> String? {
        let picture: PageMemory
        do {
            picture = try PageMemory(byteCount: byteCount)
        } catch {
            throw .outOfMemory(file: file, byteCount: error.byteCount)
        }
        try cancellation.check(file: file)
        let code = spng_decode_image(
            spng.handle, picture.bytes, byteCount, format.decodeFormat, Int32(SPNG_DECODE_TRNS.rawValue))
        try cancellation.check(file: file)
        var stop: String?
        if code != 0 {
            stop =
                "its interlaced image data stops before its last pass (\(SPNGContext.message(code))); "
                + "what no pass reached is left blank"
        }
        let rowBytes = size.width * format.decodedPixelBytes
        let narrowed = workspace.scratch
        narrowed.reserve(size.width * format.layout.rawValue)
        for y in 0..<size.height {
            let row = picture.bytes + y * rowBytes
            if format.isNarrowed {
                format.narrow(row, width: size.width, into: narrowed.pointer)
                upload.push(narrowed.pointer)
            } else {
                upload.push(row)
            }
        }
        return stop
    }

    private func corrupt(_ code: Int32, while step: String) -> ImagePrepError {
        .corruptPNG(file: file, detail: "libspng stopped \(step): \(SPNGContext.message(code))")
    }

    /// The warning of an APNG, whose default image alone is prepared.
    static func animationWarning(frames: UInt32, isDefaultImageAFrame: Bool) -> PhotoWarning {
        let count = frames == 1 ? "1 frame" : "\(frames) frames"
        return PhotoWarning(
            .animation,
            isDefaultImageAFrame
                ? "it is an animated PNG of \(count); only its first frame is prepared."
                : "it is an animated PNG of \(count) that shows its default image only where animation is not "
                    + "played; that default image is prepared, and none of the frames.")
    }
}
