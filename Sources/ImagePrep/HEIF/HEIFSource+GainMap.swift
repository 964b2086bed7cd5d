#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HEIFSource {
    /// A HEIC's HDR gain map that our walk has checked: its item, what its decode takes, and what
    /// the file says of it (its auxiliary type, its XMP, the ISO 21496-1 metadata of a `tmap`).
    struct HEIFGainMapSource {
        let item: HEIFContainer.ItemID
        let plan: HEIFContainer.DecodePlan
        /// Its `auxC`, as the container reads it; nil when it is no auxiliary image.
        let auxiliaryType: String?
        let xmp: [[UInt8]]
        let toneMap: Result<ISOGainMapMetadata.ToneMap, GainMapProblem>?
    }

    /// What the upload's gain map says, and how the original's samples become its own.
    struct GainMapMeaning {
        var metadata: GainMapMetadata
        /// For each 8-bit sample, the upload's; nil to carry the samples as they are.
        var samples: [UInt8]?
        /// The ISO 21496-1 segments of the upload's primary and of its gain map (none or one each).
        var primarySegments: [Data] = []
        var gainMapSegments: [Data] = []
    }

    /// A HEIC's HDR gain map (`HEIFContainer.gainMapItem`), checked by our own walk before
    /// libheif reads the file: its decode held to the photo's limits and to what a gain map decoded
    /// whole may take (`GainMapBudget`), no larger than the photo, in its proportions, turned as
    /// it is. Nil when the photo has none.
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
        // libheif decodes it whole, beside the photo.
        if let problem = GainMapBudget.problem(decodingWhole: plan.decodedPixels, maxPixels: limit) {
            return .failure(problem)
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
        return .success(
            HEIFGainMapSource(
                item: item, plan: plan, auxiliaryType: container.auxiliaryTypeName(of: item),
                xmp: container.xmpPackets(describing: item), toneMap: container.toneMapMetadata()))
    }

    /// What the gain map means, from the best source the file has: the ISO 21496-1 metadata of
    /// its `tmap` item, carried as it is (its samples too); else by its type: Apple's headroom
    /// (its version 2 XMP's, else the maker note's, in `tiff`) with its samples remapped, or the
    /// `hdrgm` XMP on Samsung's gain map item, carried as it is.
    ///
    /// - Returns: why none can be used: the `tmap`'s problem when it has one, else the type's.
    func gainMapMeaning(of source: HEIFGainMapSource, tiff: [UInt8]?) -> Result<GainMapMeaning, GainMapProblem> {
        var toneMapProblem: GainMapProblem?
        switch source.toneMap {
        case .success(let toneMap) where toneMap.metadata.gainMapMax.count == 1:
            return .success(
                GainMapMeaning(
                    metadata: toneMap.metadata, primarySegments: [ISOGainMapMetadata.primarySegment],
                    gainMapSegments: [toneMap.gainMapSegment]))
        case .success:
            toneMapProblem = .metadata("its ISO 21496-1 metadata is for three channels, and it is carried as one")
        case .failure(let problem): toneMapProblem = problem
        case nil: break
        }
        let meaning: Result<GainMapMeaning, GainMapProblem>
        switch source.auxiliaryType {
        case HEIFContainer.appleGainMapType:
            meaning = AppleHDRHeadroom.read(gainMapXMP: source.xmp, tiff: tiff).map {
                GainMapMeaning(metadata: $0.ultraHDRMetadata, samples: $0.ultraHDRSamples)
            }
        case HEIFContainer.samsungGainMapType:
            guard let packet = source.xmp.first(where: { !XMPText.values(of: "hdrgm:Version", in: $0).isEmpty }) else {
                meaning = .failure(.metadata("it has no hdrgm XMP and no ISO 21496-1 metadata"))
                break
            }
            meaning = GainMapMetadata.read(xmp: packet).flatMap { metadata in
                metadata.gainMapMax.count == 1
                    ? .success(GainMapMeaning(metadata: metadata))
                    : .failure(.metadata("its hdrgm metadata is for three channels, and it is carried as one"))
            }
        default: meaning = .failure(toneMapProblem ?? .metadata("it is of no gain map type read here"))
        }
        if case .failure(let problem) = meaning, let toneMapProblem, problem != toneMapProblem {
            return .failure(toneMapProblem)
        }
        return meaning
    }

    /// The upload's Ultra HDR gain map made from a HEIC's (`checkedGainMap`), for an upload of
    /// `uploadSize` from a photo stored at `baseSize`, turned by `turn` as the upload is; nil,
    /// with a `.gainMap` warning, when its metadata cannot be used (`gainMapMeaning`) or it
    /// cannot be decoded. The photo never fails because of it.
    ///
    /// Its samples are resampled by the photo's ratio, then mapped as its meaning says (an
    /// iPhone's without ISO 21496-1 metadata by `AppleHDRHeadroom.ultraHDRSamples`, a 256-entry
    /// table, so that the Ultra HDR values boost as Apple's formula does).
    func uploadGainMap(
        ofHEIF primary: borrowing HEIFImageHandle, source: HEIFGainMapSource, tiff: [UInt8]?, baseSize: PixelSize,
        uploadSize: PixelSize, turn: Orientation
    ) -> UploadGainMap? {
        let (item, plan) = (source.item, source.plan)
        let start = clock.now
        let meaning: GainMapMeaning
        switch gainMapMeaning(of: source, tiff: tiff) {
        case .success(let found): meaning = found
        case .failure(let problem):
            warnings.append(problem.warning)
            return nil
        }
        guard let handle = primary.auxiliaryImage(item), source.auxiliaryType == handle.auxiliaryType else {
            warnings.append(GainMapProblem.undecodable("libheif does not give it as the photo's gain map").warning)
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
                handle, plan: plan, size: target, turn: turn, samples: meaning.samples,
                carrying: CarriedSegments(segments: [meaning.metadata.segment] + meaning.gainMapSegments))
            return UploadGainMap(
                copy: copy,
                primarySegments: [GainMapMetadata.primarySegment(gainMapLength: copy.data.count)]
                    + meaning.primarySegments + [MPFIndex.emptyTwoImageSegment])
        } catch {
            warnings.append(
                GainMapProblem.undecodable(GainMapProblem.cause(of: error, otherwise: "libheif cannot decode it"))
                    .warning)
            return nil
        }
    }

    /// The gain map decoded by libheif into buffers of its own (the photo's hold its pixels),
    /// one gray plane, resampled to `size`, mapped by `samples` (when given), turned and encoded
    /// with the `carried` metadata.
    private func encodedGainMap(
        _ handle: borrowing HEIFImageHandle, plan: HEIFContainer.DecodePlan, size: PixelSize, turn: Orientation,
        samples: [UInt8]?, carrying carried: CarriedSegments
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
        let resized = try gray.resampled(
            extent: extent, to: size, into: gray === buffers.upload ? buffers.decoded : buffers.upload,
            lanes: [lane], timings: &timings, file: file)
        if let samples {
            start = clock.now
            resized.planes[0].map(through: samples)
            timings.color += clock.now - start
        }
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
