/// The buffers and scratch space one photo needs, kept between photos so that a batch worker
/// stops allocating after its first photo.
///
/// Not thread-safe: give each worker its own. `PhotoPreparer.prepare` makes a fresh one, which
/// keeps nothing, when none is passed.
public final class PreparationWorkspace {
    /// Whether buffers are kept for the next photo. A workspace for one photo instead gives the
    /// full-size decode back as soon as the upload copy is made from it, which lowers the
    /// photo's peak memory by that much (18 MB for a 12 MP photo).
    public let keepsBuffersBetweenPhotos: Bool

    /// How long each stage of the last photo took.
    public internal(set) var lastTimings = StageTimings()
    /// The size the last photo was decoded at, whether strip by strip (never whole), whether by
    /// two decoders at once (`RestartSplit`), and whether its upload was encoded as its rows were
    /// made (`JPEGStreamEncoder`).
    var lastDecode = (
        size: PixelSize(width: 0, height: 0), isStripWise: false, isCutInTwo: false, isUploadStreamed: false
    )

    let decoded = PlanarImage()
    let upload = PlanarImage()
    /// For the rare JPEGs that decode to interleaved pixels first (RGB, CMYK).
    let scratch = ScratchBuffer()
    /// Two lines of work, so that the copies of one photo can be made at once.
    let lanes = [CopyLane(), CopyLane()]
    /// One per plane, for a decode that hands over its planes' rows strip by strip.
    let stripResamplers = [Resampler(), Resampler(), Resampler()]
    /// The same for the bottom band, when a photo's two halves are decoded at once.
    let bottomBandResamplers = [Resampler(), Resampler(), Resampler()]

    public init(keepsBuffersBetweenPhotos: Bool = true) {
        self.keepsBuffersBetweenPhotos = keepsBuffersBetweenPhotos
    }
}

/// The buffers of one line of work on the copies: resampling, turning, colour and encoding.
final class CopyLane {
    let resampler = Resampler()
    let resized = PlanarImage()
    let oriented = PlanarImage()
    let scratch = ScratchBuffer()
    let encodeBuffer = EncodeBuffer()
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

    /// Everything above. With `splitsWorkAcrossCores` the stages are summed over both threads,
    /// so the total is processor time rather than the wall-clock time the photo took.
    public var total: Duration { read + decode + resample + rotate + color + encode + metadata }

    mutating func add(_ other: StageTimings) {
        read += other.read
        decode += other.decode
        resample += other.resample
        rotate += other.rotate
        color += other.color
        encode += other.encode
        metadata += other.metadata
    }
}
