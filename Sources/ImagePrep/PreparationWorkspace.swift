/// The buffers and scratch space one photo needs, kept between photos so that a batch worker
/// stops allocating after its first photo.
///
/// Not thread-safe: give each worker its own. `PhotoPreparer.prepare` makes a fresh one when
/// none is passed.
public final class PreparationWorkspace {
    /// How long each stage of the last photo took.
    public internal(set) var lastTimings = StageTimings()

    let decoded = PlanarImage()
    let upload = PlanarImage()
    let resized = PlanarImage()
    let oriented = PlanarImage()
    let resampler = Resampler()
    let scratch = ScratchBuffer()
    let encodeBuffer = EncodeBuffer()

    public init() {}
}

/// Where the time of one photo went, for benchmarks.
public struct StageTimings: Sendable, Hashable {
    /// Reading the file (only when ImagePrep reads it).
    public var read = Duration.zero
    /// libjpeg-turbo decoding at the chosen DCT scale.
    public var decode = Duration.zero
    /// Lanczos3 resampling of all copies.
    public var resample = Duration.zero
    /// Turning the stripped copies upright.
    public var rotate = Duration.zero
    /// Converting the stripped copies to sRGB.
    public var color = Duration.zero
    /// libjpeg-turbo encoding and assembling of all copies.
    public var encode = Duration.zero
    /// The marker walk, EXIF reading and patching.
    public var metadata = Duration.zero

    public init() {}

    /// Everything above.
    public var total: Duration { read + decode + resample + rotate + color + encode + metadata }
}
