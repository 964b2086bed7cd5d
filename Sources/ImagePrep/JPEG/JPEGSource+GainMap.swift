#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JPEGSource {
    /// The gain map of the JPEG `bytes` (an Ultra HDR JPEG's, or an iPhone JPEG's, whose samples
    /// are remapped as a HEIC's) for an upload of `uploadSize`, resized by the same ratio
    /// as the photo (`baseSize` to `uploadSize`), with its metadata; nil when there is none, when
    /// `carriesGainMap` is off, or when it cannot be carried, which adds a `.gainMap` warning.
    /// The photo itself never fails because of its gain map.
    func uploadGainMap(
        of bytes: UnsafeRawBufferPointer, layout: JPEGLayout, baseSize: PixelSize, uploadSize: PixelSize
    ) -> UploadGainMap? {
        guard configuration.carriesGainMap else { return nil }
        let start = clock.now
        let found = UltraHDRSource.find(in: bytes, layout: layout)
        timings.metadata += clock.now - start
        guard let found else { return nil }
        let source: UltraHDRSource
        switch found {
        case .success(let value): source = value
        case .failure(let problem):
            warnings.append(problem.warning)
            return nil
        }
        // libjpeg holds every coefficient of a progressive gain map, at any scale.
        let gainMap = UnsafeRawBufferPointer(rebasing: bytes[source.range])
        if let marker = SegmentWalker.walk(gainMap).frame?.marker, Self.progressiveFrames.contains(marker),
            let problem = GainMapBudget.problem(
                decodingWhole: source.size.pixelCount, maxPixels: configuration.maxPixels)
        {
            warnings.append(problem.warning)
            return nil
        }
        let target = PixelSize(
            width: max(1, Int((Double(source.size.width * uploadSize.width) / Double(baseSize.width)).rounded())),
            height: max(1, Int((Double(source.size.height * uploadSize.height) / Double(baseSize.height)).rounded())))
        // The gain map is a JPEG like any other: decoded and resampled by the same bounded code,
        // in a workspace of its own (the photo's holds its decoded pixels), refusing damage.
        var gainMapConfiguration = configuration
        gainMapConfiguration.maxEdge = target.longEdge
        gainMapConfiguration.displayEdge = nil
        gainMapConfiguration.thumbnailEdge = nil
        gainMapConfiguration.acceptsIncompleteData = false
        gainMapConfiguration.dctScaleTolerance = 0
        gainMapConfiguration.splitsWorkAcrossCores = false
        gainMapConfiguration.carriesGainMap = false
        let run = PreparationContext(
            configuration: gainMapConfiguration, workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false),
            file: file, cancellation: cancellation)
        run.uploadSamples = source.samples
        let prepared: PreparedPhoto
        do {
            prepared = try PhotoPipeline(context: run).prepare(gainMap)
        } catch {
            warnings.append(
                GainMapProblem.undecodable(
                    GainMapProblem.cause(of: error, otherwise: "it is not a JPEG that can be decoded")
                )
                .warning)
            return nil
        }
        timings.add(run.timings)
        let carried = CarriedSegments(segments: [source.metadata.segment] + source.gainMapISOSegments)
        let copy = prepared.upload.data.withUnsafeBytes { JPEGEncoder.assemble($0, carrying: carried) }
        return UploadGainMap(
            copy: EncodedJPEG(data: copy, size: prepared.upload.size),
            primarySegments: [GainMapMetadata.primarySegment(gainMapLength: copy.count)] + source.primaryISOSegments
                + [MPFIndex.emptyTwoImageSegment])
    }

    /// SOF2, SOF6, SOF10 and SOF14: progressive frames, whose coefficients libjpeg holds whole.
    static let progressiveFrames: Set<UInt8> = [0xC2, 0xC6, 0xCA, 0xCE]
}
