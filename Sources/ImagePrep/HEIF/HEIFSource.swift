#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A HEIF file (HEIC, AVIF): its walk checked by our own reader (`HEIFContainer`), its primary
/// decoded by libde265 a row of tiles at a time (`HEIFSource+HEVCDecode`) or by libheif.
struct HEIFSource: PhotoSource {
    let context: PreparationContext

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool { HEIFContainer.hasSignature(bytes) }

    /// A HEIF file's (HEIC's, AVIF's) primary image, decoded through libheif, with the metadata
    /// its upload carries.
    ///
    /// The pixels come out as libheif shows them: its rotation and mirror (`irot`, `imir`) are
    /// applied, by libheif or, after the resample, by ImagePrep, and the carried Orientation is
    /// set to 1, so the upload is upright in every viewer and the stripped copies need no turn.
    /// `metadata.orientation` stays what the Exif item says, as exiftool reads it.
    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        let start = clock.now
        let container: HEIFContainer
        let plan: HEIFContainer.DecodePlan
        do {
            container = try HEIFContainer(bytes)
            plan = try container.decodePlan()
        } catch {
            throw error.imagePrepError(file: file)
        }
        // Every size the decode would allocate, before libheif reads a byte of image data.
        guard plan.largest.pixelCount <= configuration.maxPixels else {
            throw .tooManyPixels(file: file, size: plan.largest, limit: configuration.maxPixels)
        }
        // And all it would decode: a grid's tiles overhang its canvas, and an alpha image is as
        // large as the primary, so a photo at the limit decodes up to about twice its pixels.
        let decodeLimit = configuration.maxPixels.multipliedReportingOverflow(by: 2)
        let workLimit = decodeLimit.overflow ? Int.max : decodeLimit.partialValue
        guard plan.decodedPixels <= workLimit else {
            throw .tooMuchDecoding(file: file, pixels: plan.decodedPixels, limit: workLimit)
        }
        guard plan.storedSize.width > 0, plan.storedSize.height > 0 else {
            throw .corruptHEIF(file: file, detail: "its image has a width or a height of 0")
        }
        guard plan.tilesCoverGrids else {
            throw .corruptHEIF(file: file, detail: "its grid's tiles do not cover its image")
        }
        var gainMap = checkedGainMap(in: container, photo: plan)
        var hidden: Set<HEIFContainer.ItemID> = []
        if case .failure(let problem) = gainMap {
            hidden = container.gainMapOnlyItems()
            if configuration.carriesGainMap { warnings.append(problem.warning) }
        }
        if !configuration.carriesGainMap { gainMap = nil }
        // Never silent: a gain map that is there but not found as one says so.
        if configuration.carriesGainMap, gainMap == nil, let sign = container.unreadGainMapSign() {
            warnings.append(sign.warning)
        }
        let gainMapToCarry = gainMap.flatMap { try? $0.get() }
        let tiles = container.hevcTileLayout(plan: plan)
        let av1 = configuration.decodesAV1Directly ? container.av1Image(plan: plan) : nil
        // One coded picture is held whole by its decoder: refused from its header over the budget.
        if container.primaryIsCodedImage, let format = plan.codedFormat, let codec = plan.codecs.first {
            try context.checkDecodeMemory(
                HEIFPictureMemory.bytes(
                    of: plan.largest, format: format, codec: codec, throughLibheif: tiles == nil && av1 == nil))
        }
        let hasAlpha = container.primary.map(container.hasAlpha) ?? false
        guard let readable = container.bytesForLibheif(hiding: hidden) else {
            return try decodeHEIF(
                bytes, plan: plan, direct: (tiles, av1), gainMap: gainMapToCarry,
                isCodedImage: container.primaryIsCodedImage, hasAlpha: hasAlpha, since: start)
        }
        warnings += container.unreadItemWarnings
        let decoded = readable.withUnsafeBytes { readable in
            Result { () throws(ImagePrepError) in
                try decodeHEIF(
                    readable, plan: plan, direct: (tiles, av1), gainMap: gainMapToCarry,
                    isCodedImage: container.primaryIsCodedImage, hasAlpha: hasAlpha, since: start)
            }
        }
        return try decoded.get()
    }

    /// The decode itself, of a file whose plan holds to the limits: by libde265 straight into the
    /// upload where the direct decode covers the primary image, else through libheif.
    ///
    /// - Parameters:
    ///   - direct: the primary's HEVC tiles or its AV1 image, when a direct decode covers it (of
    ///     the file itself, not of the copy made for libheif).
    ///   - gainMap: the HDR gain map to carry, checked (`checkedGainMap`).
    ///   - hasAlpha: whether the primary has an alpha image, composited over the background.
    private func decodeHEIF(
        _ bytes: UnsafeRawBufferPointer, plan: HEIFContainer.DecodePlan,
        direct: (tiles: HEVCTileLayout?, av1: AV1Image?), gainMap: HEIFGainMapSource?, isCodedImage: Bool,
        hasAlpha: Bool,
        since metadataStart: ContinuousClock.Instant
    ) throws(ImagePrepError) -> DecodedPhoto {
        var start = metadataStart
        let libheif = try Libheif.shared(for: file)
        try HEIFDecoder.checkDecoders(for: plan.codecs, file: file, hasDecoder: libheif.hasDecoder)
        // The context's reader refuses libheif every piece of data once the cancel is raised, so
        // that its decode stops at the next tile.
        let context = try HEIFContext(
            bytes, libheif: libheif, decodingThreads: configuration.splitsWorkAcrossCores ? 2 : 0,
            cancellation: cancellation, file: file)
        let handle = try context.primaryImage(file: file)
        let (metadata, tiff, metadataWarnings) = HEIFMetadata.read(handle, plan: plan)
        warnings += metadataWarnings
        var (profile, profileWarning) = HEIFMetadata.iccProfile(of: handle)
        let nclx = handle.nclx
        if profile == nil, profileWarning == nil, let nclx {
            (profile, profileWarning) = ICCProfile.make(describing: nclx)
        }
        timings.metadata += clock.now - start

        // libheif decodes at full size; the copy into our planes averages it down by the factor
        // that the JPEG path's DCT scale rule would pick, so that a 24 MP photo is resampled from
        // a quarter of its samples (and, in speed mode, 2016 px stand for 2048).
        start = clock.now
        let stored = HEIFDecoder.decodedSize(of: handle, plan: plan)
        var uploadSize = stored.fitting(longEdge: configuration.maxEdge)
        let reduction = JPEGDecoder.scaleDenominator(
            from: stored, to: uploadSize, tolerance: configuration.dctScaleTolerance)
        try cancellation.check(file: file)
        let turn: Orientation
        let reducedBy: Int
        var stripUpload: PlanarImage?
        // As after libheif's decode: speed mode keeps a reduced size short of the upload's.
        let reducedSize = JPEGDecoder.scaled(stored, by: reduction)
        let directSize = reducedSize.longEdge < uploadSize.longEdge ? reducedSize : uploadSize
        let tiles = direct.tiles
        let directRows = try tiles.flatMap { tiles throws(ImagePrepError) in
            tiles.convertsRows ? try directHEVCRowUpload(tiles, uploadSize: uploadSize) : nil
        }
        let directTiles = try tiles.flatMap { tiles throws(ImagePrepError) in
            tiles.convertsRows ? nil : try directHEVCUpload(tiles, uploadSize: directSize, reduction: reduction)
        }
        let directAV1 = try direct.av1.flatMap { av1 throws(ImagePrepError) in
            try directAV1Upload(av1, nclx: nclx, uploadSize: uploadSize)
        }
        if tiles != nil || direct.av1 != nil, directRows == nil, directTiles == nil, directAV1 == nil, isCodedImage,
            let format = plan.codedFormat, let codec = plan.codecs.first
        {
            // libheif decodes what the direct decode left: it holds more than libde265 or dav1d
            // alone, which is all the budget was counted for.
            try self.context.checkDecodeMemory(
                HEIFPictureMemory.bytes(of: plan.largest, format: format, codec: codec, throughLibheif: true))
        }
        if let directRows {
            try cancellation.check(file: file)
            (turn, reducedBy, stripUpload) = (plan.orientation ?? .up, 1, directRows)
            workspace.lastDecode = .init(size: stored, isStripWise: true)
            timings.decode += clock.now - start
        } else if let direct = directTiles {
            (turn, reducedBy, stripUpload) = (plan.orientation ?? .up, reduction, direct.image)
            uploadSize = direct.size
            workspace.lastDecode = .init(size: direct.decodedSize, isStripWise: true)
            timings.decode += direct.decodeTime
            timings.resample += direct.resampleTime
        } else if let directAV1 {
            (turn, reducedBy, stripUpload) = (plan.orientation ?? .up, 1, directAV1)
            workspace.lastDecode = .init(size: stored, isStripWise: true)
            timings.decode += clock.now - start
        } else if hasAlpha,
            let composited = try HEIFAlphaUpload.decode(
                handle, plan: plan, context: self.context, uploadSize: uploadSize)
        {
            try cancellation.check(file: file)
            (turn, reducedBy, stripUpload) = (plan.orientation ?? .up, 1, composited.image)
            try acceptLibheifDamage(composited.warnings)
            workspace.lastDecode = .init(size: stored)  // libheif holds the whole picture
            timings.decode += clock.now - start
        } else if HEIFBandUpload.covers(plan, isCodedImage: isCodedImage, nclx: nclx),
            let banded = try HEIFBandUpload.decode(
                handle, plan: plan, nclx: nclx, context: self.context, uploadSize: uploadSize)
        {
            try cancellation.check(file: file)
            (turn, reducedBy, stripUpload) = (plan.orientation ?? .up, 1, banded.image)
            try acceptLibheifDamage(banded.warnings)
            workspace.lastDecode = .init(size: stored)  // libheif holds the whole picture
            timings.decode += clock.now - start
        } else {
            let decoded: HEIFDecoder.DecodeReport
            do {
                decoded = try HEIFDecoder.decode(
                    handle, plan: plan, nclx: nclx, reduction: reduction, into: workspace.decoded, file: file)
            } catch {
                try cancellation.check(file: file)  // libheif's error for the data it was refused
                throw error
            }
            try cancellation.check(file: file)
            (turn, reducedBy) = (decoded.orientation, decoded.reduction)
            try acceptLibheifDamage(decoded.warnings)
            let decodedSize = workspace.decoded.size
            workspace.lastDecode = .init(size: decodedSize)
            if decodedSize.longEdge < uploadSize.longEdge { uploadSize = decodedSize }
            timings.decode += clock.now - start
        }

        start = clock.now
        warnings += profileWarning.map { [$0] } ?? []
        var uploadSegments: [Data] = []
        if let tiff {
            let upright = turn.swapsWidthAndHeight ? uploadSize.transposed : uploadSize
            let (segment, warning) = tiff.withUnsafeBytes {
                EXIFPatcher.segment(carrying: $0, settingPixelSize: upright)
            }
            uploadSegments += segment.map { [$0] } ?? []
            warnings += warning.map { [$0] } ?? []
        }
        timings.metadata += clock.now - start
        var uploadGainMap: UploadGainMap?
        try cancellation.check(file: file)
        if let gainMap {
            uploadGainMap = self.uploadGainMap(
                ofHEIF: handle, source: gainMap, tiff: tiff, baseSize: stored, uploadSize: uploadSize, turn: turn)
            try cancellation.check(file: file)  // A gain map stopped by it is a warning, not the photo's end.
        }
        uploadSegments += uploadGainMap?.primarySegments ?? []
        start = clock.now
        if let (segments, warning) = profile?.uploadSegments {
            uploadSegments += segments
            warnings += warning.map { [$0] } ?? []
        }
        timings.metadata += clock.now - start
        let factor = Double(reducedBy)
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize,
            extent: (Double(stored.width) / factor, Double(stored.height) / factor), uploadTurn: turn,
            profile: profile, uploadSegments: uploadSegments, comments: [], stripUpload: stripUpload,
            gainMap: uploadGainMap)
    }
}
