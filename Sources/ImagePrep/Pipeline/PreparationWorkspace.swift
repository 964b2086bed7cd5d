internal import PlatformLayer

/// The buffers and scratch space one photo needs, kept between photos so that a worker stops
/// allocating after its first photo.
///
/// Safe to share, for example held by a main-actor view model and passed to each async
/// `prepare`: a photo has the buffers to itself while it is prepared. A second photo prepared
/// with the same workspace at the same moment gets buffers of its own for that photo (allocated
/// afresh, as without a workspace), so two photos never share one and a call never waits for
/// another. `PhotoPreparer.prepare` makes a fresh workspace, which keeps nothing, when none is
/// passed.
public final class PreparationWorkspace: Sendable {
    /// Whether buffers are kept for the next photo. A workspace for one photo instead gives the
    /// full-size decode back as soon as the upload copy is made from it, which lowers the
    /// photo's peak memory by that much (18 MB for a 12 MP photo).
    public let keepsBuffersBetweenPhotos: Bool

    /// How long each stage of the last photo prepared with this workspace took.
    public var lastTimings: StageTimings { state.withLock { $0.lastTimings } }
    /// How the last photo was decoded (`WorkspaceBuffers.lastDecode`).
    var lastDecode: WorkspaceBuffers.DecodeFacts { state.withLock { $0.lastDecode } }

    private struct State {
        /// The kept buffers while no photo has them.
        var idle: WorkspaceBuffers?
        var lastTimings = StageTimings()
        var lastDecode = WorkspaceBuffers.DecodeFacts()
    }
    private let state: Locked<State>

    /// A workspace for one worker's photos.
    ///
    /// - Parameter keepsBuffersBetweenPhotos: Whether the buffers stay allocated from one photo to
    ///   the next (a batch), or are given back after each (an app that prepares a photo now and
    ///   then, and wants its memory back in between).
    public init(keepsBuffersBetweenPhotos: Bool = true) {
        self.keepsBuffersBetweenPhotos = keepsBuffersBetweenPhotos
        state = Locked(State(idle: WorkspaceBuffers(keepsBuffersBetweenPhotos: keepsBuffersBetweenPhotos)))
    }

    /// Runs one photo's preparation with the kept buffers, or with new ones while another photo
    /// has them, and keeps what the photo reports for `lastTimings`.
    func withBuffers<Result>(_ body: (WorkspaceBuffers) throws(ImagePrepError) -> Result) throws(ImagePrepError)
        -> Result
    {
        let taken = state.withLock { state in state.idle.take() }
        let buffers = taken ?? WorkspaceBuffers(keepsBuffersBetweenPhotos: keepsBuffersBetweenPhotos)
        defer {
            let timings = buffers.lastTimings
            let decode = buffers.lastDecode
            let isKept = taken != nil
            state.withLock { state in
                state.lastTimings = timings
                state.lastDecode = decode
                if isKept { state.idle = buffers }
            }
        }
        return try body(buffers)
    }

    /// For tests: what the kept buffers hold between photos.
    func inspectKeptBuffers<Value: Sendable>(_ look: (WorkspaceBuffers) -> Value) -> Value? {
        state.withLock { state in state.idle.map(look) }
    }
}

/// The buffers one photo is prepared in.
///
/// Unchecked `Sendable`, since it is not thread-safe: a `PreparationWorkspace` hands it to one
/// photo at a time under its lock and takes it back when that photo is done, and nothing else
/// keeps it, so two threads never use it at once.
final class WorkspaceBuffers: @unchecked Sendable {
    /// The size a photo was decoded at, whether strip by strip (never whole), whether by two
    /// decoders at once (`RestartSplit`), whether its upload was encoded as its rows were
    /// made (`JPEGStreamEncoder`), and the decoder's own worker threads (0: the calling thread).
    struct DecodeFacts: Sendable {
        var size = PixelSize(width: 0, height: 0)
        var isStripWise = false
        var isCutInTwo = false
        var isUploadStreamed = false
        var decodingThreads = 0
    }

    let keepsBuffersBetweenPhotos: Bool
    /// How long each stage of the last photo took.
    var lastTimings = StageTimings()
    var lastDecode = DecodeFacts()

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

    init(keepsBuffersBetweenPhotos: Bool) {
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

    /// Timings of zero, to add a photo's stages to.
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
