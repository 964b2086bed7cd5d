#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PreparationRun {
    /// An iPhone HEIC's HDR gain map that our walk has checked: its item and what its decode takes.
    struct HEIFGainMapSource {
        let item: HEIFContainer.ItemID
        let plan: HEIFContainer.DecodePlan
    }

    /// An iPhone HEIC's HDR gain map (`HEIFContainer.gainMapItem`), checked by our own walk before
    /// libheif reads the file: its decode held to the photo's limits, no larger than the photo,
    /// in its proportions, turned as it is. Nil when the photo has none.
    ///
    /// Checked whether or not the upload carries it: a refused gain map is hidden from libheif
    /// (`HEIFContainer.bytesForLibheif(hiding:)`), which refuses a whole file for an image over
    /// its limits, so the photo comes out the same either way.
    func checkedGainMap(in container: HEIFContainer, photo: HEIFContainer.DecodePlan) -> Result<
        HEIFGainMapSource, GainMapProblem
    >? {
        guard let item = container.gainMapItem else { return nil }
        let plan: HEIFContainer.DecodePlan
        do {
            plan = try container.gainMapPlan()
        } catch {
            return .failure(.undecodable(error.clause))
        }
        let limit = configuration.maxPixels
        let workLimit = limit.multipliedReportingOverflow(by: 2)
        guard plan.largest.pixelCount <= limit else {
            return .failure(.undecodable("it declares \(plan.largest) pixels, more than the limit of \(limit)"))
        }
        guard workLimit.overflow || plan.decodedPixels <= workLimit.partialValue else {
            return .failure(.undecodable("it is made of more images than the limit lets decode"))
        }
        let (size, base) = (plan.storedSize, photo.storedSize)
        guard size.width > 0, size.height > 0 else { return .failure(.undecodable("it has a width or a height of 0")) }
        guard size.width <= base.width, size.height <= base.height else { return .failure(.tooLarge(size, base: base)) }
        // Within about a pixel of the photo's proportions: 2016x1512 for 4032x3024.
        guard abs(size.width * base.height - size.height * base.width) <= max(base.width, base.height) else {
            return .failure(.mismatchedAspect(size, base: base))
        }
        guard plan.tilesCoverGrids else { return .failure(.undecodable("its grid's tiles do not cover it")) }
        // An auxiliary image without a turn of its own is shown as its primary is; a crop
        // (`clap`, no `orientation`) is libheif's alone to apply, to either.
        guard let turn = photo.orientation, let own = plan.orientation, !plan.hasTransformations || own == turn else {
            return .failure(.undecodable("it is turned or cropped otherwise than the photo"))
        }
        return .success(HEIFGainMapSource(item: item, plan: plan))
    }

    /// The upload's Ultra HDR gain map made from an iPhone HEIC's (`checkedGainMap`), for an
    /// upload of `uploadSize` from a photo stored at `baseSize`, turned by `turn` as the upload is;
    /// nil, with a `.gainMap` warning, when the headroom cannot be derived from Apple's metadata
    /// or the gain map cannot be decoded. The photo never fails because of it.
    ///
    /// Its samples are resampled by the photo's ratio, then each is mapped by
    /// `AppleHDRHeadroom.ultraHDRSamples` (a 256-entry table) so that the Ultra HDR values
    /// (`ultraHDRMetadata`) boost as Apple's formula does.
    mutating func uploadGainMap(
        ofHEIF primary: borrowing HEIFImageHandle, source: HEIFGainMapSource, tiff: [UInt8]?, baseSize: PixelSize,
        uploadSize: PixelSize, turn: Orientation
    ) -> UploadGainMap? {
        let (item, plan) = (source.item, source.plan)
        let start = clock.now
        let headroom: AppleHDRHeadroom
        switch tiff.map({ $0.withUnsafeBytes { AppleHDRHeadroom.read(tiff: $0) } }) {
        case .success(let found): headroom = found
        case .failure(let problem):
            warnings.append(problem.warning)
            return nil
        case nil:
            warnings.append(GainMapProblem.headroom("the photo has no EXIF").warning)
            return nil
        }
        guard let handle = primary.auxiliaryImage(item), handle.auxiliaryType == HEIFContainer.appleGainMapType else {
            warnings.append(GainMapProblem.undecodable("libheif does not give it as the photo's gain map").warning)
            return nil
        }
        guard handle.saysHDRGainMapVersion else {
            warnings.append(GainMapProblem.metadata("its XMP does not say HDRGainMapVersion").warning)
            return nil
        }
        guard plan.codecs.allSatisfy(handle.libheif.hasDecoder) else {
            warnings.append(GainMapProblem.undecodable("this libheif has no decoder for its codec").warning)
            return nil
        }
        timings.metadata += clock.now - start
        let target = PixelSize(
            width: max(1, Int((Double(plan.storedSize.width * uploadSize.width) / Double(baseSize.width)).rounded())),
            height: max(
                1, Int((Double(plan.storedSize.height * uploadSize.height) / Double(baseSize.height)).rounded())))
        do {
            let copy = try encodedGainMap(
                handle, plan: plan, size: target, turn: turn, samples: headroom.ultraHDRSamples,
                carrying: CarriedSegments(segments: [headroom.ultraHDRMetadata.segment]))
            return UploadGainMap(
                copy: copy,
                primarySegments: [
                    GainMapMetadata.primarySegment(gainMapLength: copy.data.count), MPFIndex.emptyTwoImageSegment,
                ])
        } catch {
            warnings.append(
                GainMapProblem.undecodable(Self.gainMapCause(of: error, otherwise: "libheif cannot decode it")).warning)
            return nil
        }
    }

    /// The gain map decoded by libheif into buffers of its own (the photo's hold its pixels),
    /// one gray plane, resampled to `size`, mapped by `samples`, turned and encoded with the
    /// `carried` XMP.
    private mutating func encodedGainMap(
        _ handle: borrowing HEIFImageHandle, plan: HEIFContainer.DecodePlan, size: PixelSize, turn: Orientation,
        samples: [UInt8], carrying carried: CarriedSegments
    ) throws(ImagePrepError) -> EncodedJPEG {
        var start = clock.now
        let buffers = WorkspaceBuffers(keepsBuffersBetweenPhotos: false)
        let reduction = JPEGDecoder.scaleDenominator(from: plan.storedSize, to: size, tolerance: 0)
        let decoded = try HEIFDecoder.decode(
            handle, plan: plan, nclx: handle.nclx, reduction: reduction, into: buffers.decoded, file: file)
        var gray = buffers.decoded
        if !gray.isGray {
            // Apple's gain map is one channel; a colour coding of it keeps its luma.
            gray = buffers.upload
            try gray.reshape(size: buffers.decoded.size, isGray: true, subsampling: .full, file: file)
            for y in 0..<gray.size.height {
                gray.planes[0].row(y).update(from: buffers.decoded.planes[0].row(y), count: gray.size.width)
            }
            gray.replicateLumaEdges()
        }
        timings.decode += clock.now - start
        let factor = Double(decoded.reduction)
        let extent = (Double(plan.storedSize.width) / factor, Double(plan.storedSize.height) / factor)
        let lane = buffers.lanes[0]
        let resized = try resampled(
            gray, extent: extent, to: size, into: gray === buffers.upload ? buffers.decoded : buffers.upload,
            lanes: [lane], timings: &timings, file: file)
        start = clock.now
        // The whole plane, padding too: its edge copies map as the edges do.
        let plane = resized.planes[0]
        samples.withUnsafeBufferPointer { table in
            for y in 0..<plane.height {
                let row = plane.row(y)
                for x in 0..<plane.width { row[x] = table[Int(row[x])] }
            }
        }
        timings.color += clock.now - start
        var upright = resized
        if turn != .up {
            start = clock.now
            upright = lane.oriented
            try resized.orient(turn, into: upright, file: file)
            timings.rotate += clock.now - start
        }
        start = clock.now
        defer { timings.encode += clock.now - start }
        let data = try JPEGEncoder.encode(
            upright, quality: configuration.quality, carrying: [carried], compressor: Compressor(file: file),
            buffer: lane.encodeBuffer, file: file)[0]
        return EncodedJPEG(data: data, size: upright.size)
    }
}
