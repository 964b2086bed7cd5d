#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PreparationRun {
    /// A HEIF file's (HEIC's, AVIF's) primary image, decoded through libheif, with the metadata
    /// its upload carries.
    ///
    /// The pixels come out as libheif shows them: its rotation and mirror (`irot`, `imir`) are
    /// applied, by libheif or, after the resample, by ImagePrep, and the carried Orientation is
    /// set to 1, so the upload is upright in every viewer and the stripped copies need no turn.
    /// `metadata.orientation` stays what the Exif item says, as exiftool reads it.
    mutating func decodeHEIF(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        let plan: HEIFContainer.DecodePlan
        do {
            plan = try HEIFContainer(bytes).decodePlan()
        } catch {
            throw error.imagePrepError(file: file)
        }
        // Every size the decode would allocate, before libheif reads a byte of image data.
        guard plan.largest.pixelCount <= configuration.maxPixels else {
            throw .tooManyPixels(file: file, size: plan.largest, limit: configuration.maxPixels)
        }
        guard plan.storedSize.width > 0, plan.storedSize.height > 0 else {
            throw .corruptHEIF(file: file, detail: "its image has a width or a height of 0")
        }
        try HEIFDecoder.checkDecoders(for: plan.codecs, file: file)
        let context = try HEIFContext(
            bytes, decodingThreads: configuration.splitsWorkAcrossCores ? 2 : 0, file: file)
        let handle = try context.primaryImage(file: file)
        let (metadata, tiff, metadataWarnings) = HEIFMetadata.read(handle, plan: plan)
        warnings += metadataWarnings
        var (profile, profileWarning) = HEIFMetadata.iccProfile(of: handle)
        let nclx = handle.nclx
        if profile == nil, profileWarning == nil, let nclx {
            (profile, profileWarning) = ICCProfile.make(describing: nclx)
        }
        timings.metadata += clock.now - start

        start = clock.now
        let decoded = try HEIFDecoder.decode(handle, plan: plan, nclx: nclx, into: workspace.decoded, file: file)
        warnings += decoded.warnings
        timings.decode += clock.now - start

        start = clock.now
        warnings += profileWarning.map { [$0] } ?? []
        let storedSize = workspace.decoded.size
        let uploadSize = storedSize.fitting(longEdge: configuration.maxEdge)
        var uploadSegments: [Data] = []
        if let tiff {
            let upright = decoded.orientation.swapsWidthAndHeight ? uploadSize.transposed : uploadSize
            let (segment, warning) = tiff.withUnsafeBytes {
                EXIFPatcher.segment(carrying: $0, settingPixelSize: upright)
            }
            uploadSegments += segment.map { [$0] } ?? []
            warnings += warning.map { [$0] } ?? []
        }
        if let profile {
            if let segments = profile.jpegSegments {
                uploadSegments += segments
            } else {
                warnings.append(
                    PhotoWarning(
                        .colorProfile, "The ICC profile is too large for a JPEG to carry, so the upload has none"))
            }
        }
        timings.metadata += clock.now - start
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize,
            extent: (Double(storedSize.width), Double(storedSize.height)), uploadTurn: decoded.orientation,
            profile: profile, uploadSegments: uploadSegments, comments: [])
    }
}
