#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JPEG: decoded by libjpeg-turbo strip by strip straight into the resamplers where it can be
/// (`JPEGSource+StripDecode`), else whole at the smallest DCT scale that covers the upload; its
/// upload keeps the pixels as stored, with the original's EXIF (Orientation included), ICC
/// profile, comments and HDR gain map.
struct JPEGSource: PhotoSource {
    let context: PreparationContext

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == JPEGSegment.startOfImage
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        let layout = SegmentWalker.walk(bytes)
        if let frame = layout.frame {
            if frame.isLossless { throw .unsupportedFormat(file: file, format: .losslessJPEG) }
            if let reason = frame.unsupportedReason { throw .unsupportedJPEG(file: file, reason: reason) }
            try context.checkPixelLimit(frame.size)
        }
        let decompressor = try Decompressor(file: file)
        let header: JPEGHeader
        do {
            header = try JPEGDecoder.readHeader(bytes, decompressor: decompressor, file: file)
        } catch {
            if let problem = layout.problem { throw .corruptJPEG(file: file, detail: problem) }
            throw error
        }
        if header.size.width == 0 || header.size.height == 0, let problem = layout.problem {
            throw .corruptJPEG(file: file, detail: problem)
        }
        try context.checkPixelLimit(header.size)
        var (metadata, metadataWarnings) = EXIFReader.metadata(of: bytes, layout: layout)
        // Where the marker walk stopped before the frame header, libjpeg-turbo still found it.
        if layout.frame == nil { metadata.originalSize = header.size }
        warnings += metadataWarnings
        let (profile, profileWarning) = ICCProfile.assemble(from: bytes, layout: layout)
        warnings += profileWarning.map { [$0] } ?? []
        timings.metadata += clock.now - start

        // A clean YCbCr or gray photo is decoded strip by strip into the resampler, never held
        // whole, at a DCT scale that leaves the resampler at least half the reduction.
        start = clock.now
        var uploadSize = header.size.fitting(longEdge: configuration.maxEdge)
        let extent: (width: Double, height: Double)
        var stripUpload: PlanarImage?
        var streamedUpload: UnsafeRawBufferPointer?
        if let strips = try stripDecoded(bytes, header: header, layout: layout, to: uploadSize) {
            timings.resample += strips.resampleTime
            timings.decode += strips.decodeTime
            timings.encode += strips.streamTime
            streamedUpload = strips.streamedUpload
            workspace.lastDecode = .init(
                size: strips.decodedSize, isStripWise: true, isCutInTwo: strips.isCutInTwo,
                isUploadStreamed: strips.streamedUpload != nil)
            uploadSize = strips.size
            extent = (Double(uploadSize.width), Double(uploadSize.height))  // Already resampled.
            stripUpload = strips.image
        } else {
            // Else decode once, at the smallest DCT scale that still covers the upload size.
            let denominator = JPEGDecoder.scaleDenominator(
                from: header.size, to: uploadSize, tolerance: configuration.dctScaleTolerance)
            let decodedSize = JPEGDecoder.scaled(header.size, by: denominator)
            if decodedSize.longEdge < uploadSize.longEdge { uploadSize = decodedSize }
            let options = JPEGDecoder.Options(
                scaleDenominator: denominator, acceptsIncompleteData: configuration.acceptsIncompleteData,
                cmykProfile: header.colorModel == .cmyk ? profile : nil)
            // One TurboJPEG call with no hook: cancelling is seen before it and after it.
            let decode = try JPEGDecoder.decode(
                bytes, header: header, options: options, decompressor: decompressor, into: workspace.decoded,
                scratch: workspace.scratch, file: file)
            try cancellation.check(file: file)
            workspace.decoded.fillRows(from: decode.rowsWritten)
            workspace.lastDecode = .init(size: decodedSize)
            warnings += decode.warnings
            timings.decode += clock.now - start
            // A side that the DCT scale does not divide decodes to one pixel more than its share
            // (223 px at 1/2 gives 112); the image itself spans 111.5 of them.
            extent = (Double(header.size.width) / Double(denominator), Double(header.size.height) / Double(denominator))
        }

        start = clock.now
        let comments = layout.commentSegments.map { bytes.data(in: $0.bytes) }
        var uploadSegments: [Data] = []
        if let exif = layout.exifSegment(in: bytes) {
            let (segment, warning) = EXIFPatcher.segment(exif, in: bytes, settingPixelSize: uploadSize)
            uploadSegments.append(segment)
            warnings += warning.map { [$0] } ?? []
        }
        timings.metadata += clock.now - start
        try cancellation.check(file: file)
        let gainMap = uploadGainMap(of: bytes, layout: layout, baseSize: header.size, uploadSize: uploadSize)
        try cancellation.check(file: file)  // A gain map stopped by it is a warning, not the photo's end.
        uploadSegments += gainMap?.primarySegments ?? []
        start = clock.now
        if header.colorModel != .cmyk {  // A CMYK profile does not describe the RGB we write.
            uploadSegments += layout.iccSegments(in: bytes).map { bytes.data(in: $0.bytes) }
        }
        uploadSegments += comments
        timings.metadata += clock.now - start
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize, extent: extent, strippedTurn: metadata.orientation ?? .up,
            profile: header.colorModel == .cmyk ? nil : profile, uploadSegments: uploadSegments, comments: comments,
            stripUpload: stripUpload, streamedUpload: streamedUpload, gainMap: gainMap)
    }
}
