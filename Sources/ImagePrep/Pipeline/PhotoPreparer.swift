internal import PackageVersion

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prepares photos: decodes a JPEG or a HEIF file (HEIC, AVIF) once and makes the upload copy,
/// the display copy and the thumbnail, all JPEG, and reads the metadata.
///
/// The format is told by the content, never by the name. A HEIF photo comes out as libheif shows
/// it, turned by the file's `irot` and `imir`: its upload is upright, with the carried EXIF's
/// Orientation set to 1, where a JPEG's upload keeps its pixels as stored and its Orientation.
///
/// A `Sendable` value with no shared state: run many photos in parallel from a task group or
/// threads, giving each worker its own `PreparationWorkspace`.
public struct PhotoPreparer: Sendable {
    /// The version of the ImagePrep package this library was built from ("0.2.0"), as
    /// `prep-photo --version` prints it and CHANGELOG.md names its releases; `Outbox.packageVersion`
    /// is the same value.
    public static let packageVersion = PackageVersion.current

    /// What to make. The defaults suit uploading phone and camera photos.
    public struct Configuration: Sendable, Hashable {
        /// The upload copy's long edge at most, in pixels; smaller photos keep their size.
        public var maxEdge = 2048
        /// The display copy's long edge at most; nil for no display copy. It is made from the
        /// upload's pixels, so it is never larger than the upload.
        public var displayEdge: Int? = 2048
        /// The thumbnail's long edge at most; nil for no thumbnail.
        public var thumbnailEdge: Int? = 400
        /// JPEG quality for every copy, 1–100.
        public var quality = 85
        /// Photos whose frame header declares more pixels than this are refused before anything
        /// is decoded (a decompression bomb is a small file that claims a huge image). For HEIF,
        /// every size the decode would allocate is held to it: the `ispe`, a grid's or overlay's
        /// canvas, and each coded image's own sequence header. The default takes a 200 MP phone
        /// photo (Samsung's 16320x12240 is 199.8 million pixels, a 16384x12288 sensor's 201.3
        /// million), with a little room.
        public var maxPixels = 210_000_000
        /// Whether to prepare a JPEG whose data libjpeg-turbo could decode only by filling in
        /// missing pixels (a download that stopped, a motion photo cut short, damaged data), as
        /// every other image tool does: the photo then carries an `.incompleteImageData` warning
        /// that says how much of the picture is missing. On by default, since refusing it loses
        /// the capture; turn it off to refuse such a file with `.incompleteImageData`. Damage
        /// that stopped the decode before its last row is refused either way. libheif decodes a
        /// HEIF image whole or not at all, so a damaged HEIF file is refused either way too.
        public var acceptsIncompleteData = true
        /// Speed mode: when a DCT scale (1/2, 1/4, 1/8) lands at most this fraction below the
        /// upload size (0.02 accepts 2016 px for 2048), use it as it is and skip the resample.
        /// 0, the default, always resamples to the exact size.
        public var dctScaleTolerance = 0.0
        /// Whether one photo's resampling and copies run on two threads. Turn it on to prepare
        /// one photo while someone waits; leave it off when already preparing several photos
        /// at once, which keeps every core busy without it.
        public var splitsWorkAcrossCores = false
        /// Whether the upload of an Ultra HDR JPEG keeps its HDR gain map, resized with the photo,
        /// and the upload of the other HDR forms phones write (an iPhone's or a Samsung's HDR
        /// HEIC, an iPhone's JPEG) is an Ultra HDR JPEG with its gain map (see docs/library.md,
        /// "HDR gain maps"). Turn it off for an engine that cannot store one: the upload is then
        /// the SDR photo alone, with no warning; a gain map that cannot be carried gives the same
        /// upload with a `.gainMap` warning that says why.
        public var carriesGainMap = true
        /// What transparent pixels (a PNG's, GIF's or WebP's alpha) are composited over, since a
        /// JPEG has no alpha: white, as a page or a chat bubble shows them, unless chosen.
        public var background = BackgroundColor.white
        /// Whether a single coded AV1 image is decoded by dav1d directly (`directAV1Upload`), as
        /// it always is; off only in tests, which compare it with libheif's decode of the photo.
        var decodesAV1Directly = true

        /// The defaults, which suit uploading phone and camera photos and are always valid.
        public init() {}
    }

    /// What this preparer makes; a value changed afterwards to one out of range makes `prepare`
    /// throw `invalidSetting`.
    public var configuration: Configuration

    /// A preparer with the default settings, which are always valid.
    public init() {
        configuration = Configuration()
    }

    /// A preparer with these settings.
    ///
    /// - Parameter configuration: What to make.
    /// - Throws: `ImagePrepError.invalidSetting` naming the first setting out of range (an edge
    ///   below 1, a quality outside 1–100, a pixel limit below 1, a tolerance outside 0..<1): a
    ///   bad setting is the caller's to handle, never a crash.
    public init(configuration: Configuration) throws(ImagePrepError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// Reads and prepares the photo at `url`, in any format ImagePrep reads, blocking the calling
    /// thread for the whole decode: for a worker thread of one's own (a batch, a command). It
    /// cannot be cancelled. App code calls ``prepare(contentsOf:workspace:)`` instead,
    /// which runs off the caller's executor; from async code this one is a warning.
    ///
    /// - Parameters:
    ///   - url: the photo's file, read whole before the decode.
    ///   - workspace: buffers to reuse from an earlier photo; one per thread.
    /// - Returns: the three copies and the metadata.
    /// - Throws: `ImagePrepError` naming the file and the cause.
    @available(*, noasync, message: "it blocks the thread for the whole decode: use 'await prepare(contentsOf:)'")
    public func prepareBlocking(
        contentsOf url: URL, workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    ) throws(ImagePrepError)
        -> PreparedPhoto
    {
        try prepareFile(at: url, workspace: workspace)
    }

    /// Both forms of preparing a file, once its task's cancel flag is known.
    private func prepareFile(
        at url: URL, workspace: PreparationWorkspace, cancellation: PreparationCancellation = PreparationCancellation()
    ) throws(ImagePrepError) -> PreparedPhoto {
        let clock = ContinuousClock()
        let start = clock.now
        try cancellation.check(file: url.relativePath)
        let data = try PhotoFile.read(url)
        return try prepareBytes(
            data, name: url.relativePath, workspace: workspace, readTime: clock.now - start, cancellation: cancellation)
    }

    /// Reads and prepares the photo at `url`, in any format ImagePrep reads, off the caller's
    /// executor: for an app that prepares a photo from the main actor without blocking its UI. The
    /// work runs on the concurrent executor.
    ///
    /// Cancelling the task stops the work within a strip of a JPEG or a tile of a HEIF file (see
    /// docs/library.md, "Cancelling"): the call then throws `CancellationError`, having freed what it
    /// held; it makes no result and writes nothing. A call that finished before it saw the cancel
    /// returns its photo.
    ///
    /// - Parameters:
    ///   - url: the photo's file, read whole before the decode.
    ///   - workspace: buffers to reuse from an earlier photo (see `PreparationWorkspace`).
    /// - Returns: the three copies and the metadata.
    /// - Throws: `ImagePrepError` naming the file and the cause, or `CancellationError` when the
    ///   task was cancelled. (The error is untyped for that; the synchronous form keeps
    ///   `throws(ImagePrepError)`.)
    @concurrent
    public func prepare(
        contentsOf url: URL, workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    ) async throws -> PreparedPhoto {
        try await cancellable { cancellation throws(ImagePrepError) in
            try prepareFile(at: url, workspace: workspace, cancellation: cancellation)
        }
    }

    /// Prepares a photo's bytes that did not come from a file (a camera buffer, a download),
    /// blocking the calling thread for the whole decode: for a worker thread of one's own. It
    /// cannot be cancelled. App code calls ``prepare(_:name:workspace:)`` instead;
    /// from async code this one is a warning.
    ///
    /// - Parameters:
    ///   - bytes: the photo's bytes, in any format ImagePrep reads.
    ///   - name: what errors and warnings call these bytes, typically a file name.
    ///   - workspace: buffers to reuse from an earlier photo (see `PreparationWorkspace`).
    /// - Returns: the three copies and the metadata.
    /// - Throws: `ImagePrepError` naming `name` and the cause.
    @available(*, noasync, message: "it blocks the thread for the whole decode: use 'await prepare(_:name:)'")
    public func prepareBlocking(
        _ bytes: Data, name: String,
        workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    )
        throws(ImagePrepError) -> PreparedPhoto
    {
        try prepareBytes(bytes, name: name, workspace: workspace, readTime: .zero)
    }

    /// Prepares a photo's bytes (a camera buffer, a download) off the caller's executor, as
    /// `prepare(contentsOf:workspace:) async` does for a file: from the main actor, the photo is
    /// decoded and encoded on the concurrent executor, never on the UI's thread.
    ///
    /// Cancelling the task stops the work within a strip of a JPEG or a tile of a HEIF file (see
    /// docs/library.md, "Cancelling"): the call then throws `CancellationError`, having freed what it
    /// held; it makes no result. A call that finished before it saw the cancel returns its photo.
    ///
    /// - Parameters:
    ///   - bytes: the photo's bytes, in any format ImagePrep reads.
    ///   - name: what errors and warnings call these bytes, typically a file name.
    ///   - workspace: buffers to reuse from an earlier photo (see `PreparationWorkspace`).
    /// - Returns: the three copies and the metadata.
    /// - Throws: `ImagePrepError` naming `name` and the cause, or `CancellationError` when the task
    ///   was cancelled.
    @concurrent
    public func prepare(
        _ bytes: Data, name: String,
        workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    ) async throws -> PreparedPhoto {
        try await cancellable { cancellation throws(ImagePrepError) in
            try prepareBytes(bytes, name: name, workspace: workspace, readTime: .zero, cancellation: cancellation)
        }
    }

    /// Every form of preparing, once the bytes are read.
    ///
    /// - Parameter cancellation: the flag the async forms raise when their task is cancelled; the
    ///   synchronous forms pass one that nothing raises.
    func prepareBytes(
        _ data: Data, name: String, workspace: PreparationWorkspace, readTime: Duration,
        cancellation: PreparationCancellation = PreparationCancellation()
    ) throws(ImagePrepError) -> PreparedPhoto {
        try configuration.validate()
        try cancellation.check(file: name)
        return try workspace.withBuffers { buffers throws(ImagePrepError) in
            do {
                let photo = try data.withUnsafeBytes { bytes throws(ImagePrepError) in
                    let context = PreparationContext(
                        configuration: configuration, workspace: buffers, file: name, cancellation: cancellation)
                    return try PhotoPipeline(context: context).prepare(bytes)
                }
                buffers.lastTimings.read = readTime
                return photo
            } catch let error as ImagePrepError {
                throw error
            } catch {
                preconditionFailure("only ImagePrepError is thrown")
            }
        }
    }
}
