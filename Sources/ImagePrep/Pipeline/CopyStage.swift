#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything after the decode, the same for every format: the upload (resampled, then turned
/// when the format asks), the display copy and the thumbnail, on one or two lanes.
struct CopyStage: PreparationStage {
    let context: PreparationContext

    /// Everything after the decode, the same for every format: the upload (resampled, then
    /// turned when the format asks), the display copy and the thumbnail.
    func makeCopies(of decoded: DecodedPhoto) throws(ImagePrepError) -> PreparedPhoto {
        let lanes = workspace.lanes
        try cancellation.check(file: file)
        let resampledUpload: PlanarImage
        if let stripUpload = decoded.stripUpload {
            resampledUpload = stripUpload
        } else {
            resampledUpload = try workspace.decoded.resampled(
                extent: decoded.extent, to: decoded.uploadSize, into: workspace.upload,
                lanes: configuration.splitsWorkAcrossCores ? lanes : [lanes[0]], timings: &timings, file: file)
            if !workspace.keepsBuffersBetweenPhotos, resampledUpload !== workspace.decoded {
                workspace.decoded.releaseMemory()
            }
        }
        let upload: PlanarImage
        if decoded.uploadTurn == .up {
            upload = resampledUpload
        } else {
            // Into whichever of the two big images the upload is not.
            let start = clock.now
            upload = resampledUpload === workspace.upload ? workspace.decoded : workspace.upload
            try resampledUpload.orient(decoded.uploadTurn, into: upload, file: file)
            timings.rotate += clock.now - start
        }
        let uploadSize = upload.size
        if let uploadSamples = context.uploadSamples, upload.isGray {
            let start = clock.now
            upload.planes[0].map(through: uploadSamples)
            timings.color += clock.now - start
        }

        // The display copy can share the upload's encoded data when it is the same picture.
        let start = clock.now
        var conversion = ColorConverter.DisplayConversion.none
        if let profile = decoded.profile {
            let (found, warning) = ColorConverter.displayConversion(for: profile, isGray: upload.isGray)
            conversion = found
            warnings += warning.map { [$0] } ?? []
        }
        timings.color += clock.now - start
        let displaySize = configuration.displayEdge.map { uploadSize.fitting(longEdge: $0) }
        let thumbnailSize = configuration.thumbnailEdge.map { uploadSize.fitting(longEdge: $0) }
        let displaySharesUpload = displaySize == uploadSize && decoded.strippedTurn == .up && !conversion.isNeeded

        let comments = decoded.comments
        let uploadSegments = decoded.uploadSegments

        let copies = CopyMaker(
            quality: configuration.quality, orientation: decoded.strippedTurn, conversion: conversion,
            comments: comments, file: file, cancellation: cancellation)
        // The display copy's pixels first, in bands on both lanes when the work is split: turning
        // and converting them would otherwise all fall on the display's lane, which also has the
        // longest encode, while the other lane has only the upload's encode and the thumbnail.
        var displayTimings = StageTimings()
        let displayPixels = try displaySize.flatMap { size throws(ImagePrepError) -> PlanarImage? in
            guard !displaySharesUpload else { return nil }
            return try copies.uprightPixels(
                of: upload, size: size, lane: lanes[1],
                workers: configuration.splitsWorkAcrossCores ? lanes : [lanes[1]], timings: &displayTimings)
        }

        // When the display copy has pixels of its own and the work is split, the thumbnail's are
        // made now too, in bands on both lanes, in the upload's lane's buffers: only its small
        // encode is then left, after the display's, and the two lines of work below end together
        // (made on the upload's line, the thumbnail was 3 ms more work for one of them).
        var thumbnailTimings = StageTimings()
        let thumbnailPixels = try thumbnailSize.flatMap { size throws(ImagePrepError) -> PlanarImage? in
            guard displayPixels != nil, configuration.splitsWorkAcrossCores else { return nil }
            return try copies.uprightPixels(
                of: upload, size: size, lane: lanes[0], workers: lanes, timings: &thumbnailTimings)
        }
        timings.add(thumbnailTimings)

        // Then two lines of work, each with its own codec handles and buffers: the upload copy
        // (and the display copy when it shares the upload's data), and the display copy's
        // encode. The thumbnail goes on the line with less to do: the display's when its pixels
        // are made or the display copy shares the upload's data (that line has nothing else),
        // else the upload's.
        let thumbnailLane = displayPixels == nil || thumbnailPixels != nil ? 1 : 0
        let thumbnail = { (lane: Int, timings: inout StageTimings) throws(ImagePrepError) -> EncodedJPEG? in
            guard lane == thumbnailLane, let thumbnailSize else { return nil }
            if let thumbnailPixels {
                return try copies.encodeStripped(thumbnailPixels, lane: lanes[lane], timings: &timings)
            }
            return try copies.strippedCopy(of: upload, size: thumbnailSize, lane: lanes[lane], timings: &timings)
        }
        var uploadTimings = StageTimings()
        let uploadLine = {
            (timings: inout StageTimings) throws(ImagePrepError) -> (files: [Data], thumbnail: EncodedJPEG?) in
            let files = try copies.encodeUpload(
                upload, segments: uploadSegments, sharingDisplay: displaySharesUpload,
                streamed: decoded.uploadTurn == .up ? decoded.streamedUpload : nil, lane: lanes[0], timings: &timings)
            return (files, try thumbnail(0, &timings))
        }
        let displayLine = {
            (timings: inout StageTimings) throws(ImagePrepError) -> (display: EncodedJPEG?, thumbnail: EncodedJPEG?) in
            let display = try displayPixels.map { pixels throws(ImagePrepError) in
                try copies.encodeStripped(pixels, lane: lanes[1], timings: &timings)
            }
            return (display, try thumbnail(1, &timings))
        }
        let (uploadResult, displayResult) = Parallel.run(
            { () throws(ImagePrepError) in try uploadLine(&uploadTimings) },
            { () throws(ImagePrepError) in try displayLine(&displayTimings) },
            concurrently: configuration.splitsWorkAcrossCores)
        let (files, uploadLineThumbnail) = try uploadResult.get()
        let (ownDisplay, displayLineThumbnail) = try displayResult.get()
        let display = displaySharesUpload ? EncodedJPEG(data: files[1], size: uploadSize) : ownDisplay
        let uploadFile = decoded.gainMap.map { MPFIndex.filled(files[0], appending: $0.copy.data) } ?? files[0]
        let thumbnailCopy = uploadLineThumbnail ?? displayLineThumbnail
        timings.add(uploadTimings)
        timings.add(displayTimings)
        workspace.lastTimings = timings
        return PreparedPhoto(
            upload: EncodedJPEG(data: uploadFile, size: uploadSize), display: display, thumbnail: thumbnailCopy,
            metadata: decoded.metadata, warnings: warnings, uploadGainMap: decoded.gainMap?.copy)
    }
}
