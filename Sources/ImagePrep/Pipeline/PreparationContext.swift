/// What every stage of one photo's preparation shares: the settings, the buffers, the file's
/// name, the cancel flag, and what the stages report (warnings, timings).
///
/// A class, so that a format's source and the copy stage each hold it and add to the same
/// warnings; one photo's context is never seen by another photo.
final class PreparationContext {
    let configuration: PhotoPreparer.Configuration
    let workspace: WorkspaceBuffers
    let file: String
    /// Raised when the task that asked for the photo is cancelled: checked between strips, tiles,
    /// encodes and before the gain map.
    let cancellation: PreparationCancellation
    let clock = ContinuousClock()
    var warnings: [PhotoWarning] = []
    var timings = StageTimings()
    /// A gain map's preparation: for each 8-bit sample of its gray upload, the one it carries (an
    /// iPhone gain map's remap to Ultra HDR's formula); nil to keep them.
    var uploadSamples: [UInt8]?

    init(
        configuration: PhotoPreparer.Configuration, workspace: WorkspaceBuffers, file: String,
        cancellation: PreparationCancellation = PreparationCancellation()
    ) {
        self.configuration = configuration
        self.workspace = workspace
        self.file = file
        self.cancellation = cancellation
    }

    /// Refuses a picture larger than `maxPixels`, or with a side of 0, before anything is decoded.
    func checkPixelLimit(_ size: PixelSize) throws(ImagePrepError) {
        guard size.pixelCount <= configuration.maxPixels else {
            throw .tooManyPixels(file: file, size: size, limit: configuration.maxPixels)
        }
        guard size.width > 0, size.height > 0 else {
            throw .corruptJPEG(file: file, detail: "the frame header gives a size of \(size)")
        }
    }
}

/// A stage of a photo's preparation (a format's source, the copies): it works in one
/// `PreparationContext` and reads and reports through it by the context's own names.
protocol PreparationStage {
    var context: PreparationContext { get }
}

extension PreparationStage {
    var configuration: PhotoPreparer.Configuration { context.configuration }
    var workspace: WorkspaceBuffers { context.workspace }
    var file: String { context.file }
    var cancellation: PreparationCancellation { context.cancellation }
    var clock: ContinuousClock { context.clock }
    var warnings: [PhotoWarning] {
        get { context.warnings }
        nonmutating set { context.warnings = newValue }
    }
    var timings: StageTimings {
        get { context.timings }
        nonmutating set { context.timings = newValue }
    }
}
