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
        /// Whether to accept a JPEG whose data libjpeg-turbo could decode only by filling in
        /// missing pixels (a truncated or damaged file). Such a photo then carries an
        /// `.incompleteImageData` warning; by default it is refused. Damage that stopped the
        /// decode before its last row is refused either way. libheif decodes a HEIF image whole
        /// or not at all, so a damaged HEIF file is refused either way too.
        public var acceptsIncompleteData = false
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

    /// Reads and prepares the photo (JPEG or HEIF) at `url`, on the caller's thread: for a worker
    /// thread of one's own. It cannot be cancelled; the async form can.
    ///
    /// - Parameters:
    ///   - url: the photo's file, read whole before the decode.
    ///   - workspace: buffers to reuse from an earlier photo; one per thread.
    /// - Returns: the three copies and the metadata.
    /// - Throws: `ImagePrepError` naming the file and the cause.
    public func prepare(
        contentsOf url: URL, workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    ) throws(ImagePrepError)
        -> PreparedPhoto
    {
        try prepareFile(at: url, workspace: workspace)
    }

    /// Both forms of `prepare(contentsOf:workspace:)`: one name for each, since an async context
    /// would otherwise always pick the async overload.
    private func prepareFile(
        at url: URL, workspace: PreparationWorkspace, cancellation: PreparationCancellation = PreparationCancellation()
    ) throws(ImagePrepError) -> PreparedPhoto {
        let clock = ContinuousClock()
        let start = clock.now
        try cancellation.check(file: url.relativePath)
        let data = try Self.read(url)
        return try prepareBytes(
            data, name: url.relativePath, workspace: workspace, readTime: clock.now - start, cancellation: cancellation)
    }

    /// Reads and prepares the photo at `url` (JPEG or HEIF) off the caller's executor: for an app that
    /// prepares a photo from the main actor without blocking its UI. The work runs on the
    /// concurrent executor.
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

    /// Prepares a photo's bytes (JPEG or HEIF) that did not come from a file (a camera buffer, a
    /// download), on the caller's thread. It cannot be cancelled; the async form can.
    ///
    /// - Parameters:
    ///   - jpeg: the photo's bytes, JPEG or HEIF (the name is older than HEIF support).
    ///   - name: what errors and warnings call these bytes, typically a file name.
    ///   - workspace: buffers to reuse from an earlier photo (see `PreparationWorkspace`).
    /// - Returns: the three copies and the metadata.
    /// - Throws: `ImagePrepError` naming `name` and the cause.
    public func prepare(
        _ jpeg: Data, name: String,
        workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    )
        throws(ImagePrepError) -> PreparedPhoto
    {
        try prepareBytes(jpeg, name: name, workspace: workspace, readTime: .zero)
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
    ///   - jpeg: the photo's bytes, JPEG or HEIF (the name is older than HEIF support).
    ///   - name: what errors and warnings call these bytes, typically a file name.
    ///   - workspace: buffers to reuse from an earlier photo (see `PreparationWorkspace`).
    /// - Returns: the three copies and the metadata.
    /// - Throws: `ImagePrepError` naming `name` and the cause, or `CancellationError` when the task
    ///   was cancelled.
    @concurrent
    public func prepare(
        _ jpeg: Data, name: String,
        workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    ) async throws -> PreparedPhoto {
        try await cancellable { cancellation throws(ImagePrepError) in
            try prepareBytes(jpeg, name: name, workspace: workspace, readTime: .zero, cancellation: cancellation)
        }
    }

    /// Both forms of `prepare(_:name:workspace:)`, and the file forms once the file is read.
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
                    var run = PreparationRun(
                        configuration: configuration, workspace: buffers, file: name, cancellation: cancellation)
                    return try run.prepare(bytes)
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

    /// Reads a whole file with plain POSIX calls, so that the error carries the system's own
    /// reason ("No such file or directory", "Permission denied").
    ///
    /// Opened with `O_NONBLOCK` and checked to be a regular file before a byte is read: opening a
    /// FIFO without it waits for a writer for ever, and a device can be read for ever.
    static func read(_ url: URL) throws(ImagePrepError) -> Data {
        let name = url.relativePath
        func failure() -> ImagePrepError { .unreadable(file: name, reason: String(cString: strerror(errno))) }
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure() }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure() }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(file: name, reason: Self.notRegularFileReason(mode: info.st_mode))
        }
        if let refusal = PhotoBytes.refusal(forSize: Int(info.st_size)) {
            throw .unreadable(file: name, reason: refusal)
        }
        let size = Int(info.st_size)
        return try PhotoBytes.read(capacity: size, shortage: .outOfMemory(file: name, byteCount: size)) {
            bytes throws(ImagePrepError) in
            var filled = 0
            while filled < bytes.count {
                let count = Platform.read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
                if count < 0, errno == EINTR { continue }
                if count < 0 { throw failure() }
                if count == 0 { break }  // The file shrank while we read it.
                filled += count
            }
            return filled
        }
    }

    /// Why a file of this type is not read, naming the type.
    private static func notRegularFileReason(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "it is a folder"
        case S_IFIFO: "it is not a regular file but a named pipe (FIFO)"
        case S_IFCHR: "it is not a regular file but a character device"
        case S_IFBLK: "it is not a regular file but a block device"
        case S_IFSOCK: "it is not a regular file but a socket"
        default: "it is not a regular file"
        }
    }
}

/// The work on one photo, stage by stage, with its timings.
struct PreparationRun {
    let configuration: PhotoPreparer.Configuration
    let workspace: WorkspaceBuffers
    let file: String
    var warnings: [PhotoWarning] = []
    var timings = StageTimings()
    let clock = ContinuousClock()
    /// Raised when the task that asked for the photo is cancelled: checked between strips, tiles,
    /// encodes and before the gain map.
    let cancellation: PreparationCancellation
    /// A gain map's run: for each 8-bit sample of its gray upload, the one it carries (an iPhone
    /// gain map's remap to Ultra HDR's formula); nil to keep them.
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

    /// What a decoder hands to the copies; its pixels are in `workspace.decoded`, or in
    /// `stripUpload` when a strip decode resampled them as it went.
    struct DecodedPhoto {
        var metadata: PhotoMetadata
        /// The upload's size before `uploadTurn`, at most `maxEdge` on its long side.
        var uploadSize: PixelSize
        /// How many of the decoded pixels the picture spans; less than their count when a DCT
        /// scale rounded a side up.
        var extent: (width: Double, height: Double)
        /// The turn the upload gets after it is resampled: a HEIF file's rotation and mirror.
        var uploadTurn = Orientation.up
        /// The turn the stripped copies get: a JPEG's EXIF Orientation, which its upload keeps.
        var strippedTurn = Orientation.up
        /// The profile the pixels are in, for the stripped copies' conversion to sRGB; nil when
        /// there is none or it does not describe them (a CMYK profile).
        var profile: ICCProfile?
        /// The original's segments the upload carries (EXIF, ICC profile, comments), in order.
        var uploadSegments: [Data]
        /// The comments, which every copy carries.
        var comments: [Data]
        /// The upload, already at `uploadSize`, when a JPEG was decoded strip by strip straight
        /// into the resampler; nil when the copies resample `workspace.decoded`.
        var stripUpload: PlanarImage? = nil
        /// The upload's file without its metadata, when the strip decode encoded it as it went
        /// (`JPEGStreamEncoder`): in the first lane's encode buffer, until that lane encodes again.
        var streamedUpload: UnsafeRawBufferPointer? = nil
        /// The HDR gain map the upload carries after its EOI, resized; its segments are already in
        /// `uploadSegments`.
        var gainMap: UploadGainMap? = nil
    }

    mutating func prepare(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> PreparedPhoto {
        guard !bytes.isEmpty else { throw .empty(file: file) }
        // By content, not by name: an iPhone photo renamed .jpg is still a HEIC.
        if HEIFContainer.hasSignature(bytes) { return try makeCopies(of: decodeHEIF(bytes)) }
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == JPEGSegment.startOfImage else {
            throw .notJPEG(file: file, detected: FileSignature.describe(bytes))
        }
        return try makeCopies(of: decodeJPEG(bytes))
    }

    private mutating func decodeJPEG(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        let layout = SegmentWalker.walk(bytes)
        if let frame = layout.frame {
            if let reason = frame.unsupportedReason { throw .unsupportedJPEG(file: file, reason: reason) }
            try checkPixelLimit(frame.size)
        }
        let decompressor = try Decompressor(file: file)
        let header: JPEGHeader
        do {
            header = try JPEGDecoder.readHeader(bytes, decompressor: decompressor, file: file)
        } catch {
            if let problem = layout.problem { throw .corruptJPEG(file: file, detail: problem) }
            throw error
        }
        if header.size.width == 0 || header.size.height == 0, let problem = layout.problem {
            throw .corruptJPEG(file: file, detail: problem)
        }
        try checkPixelLimit(header.size)
        var (metadata, metadataWarnings) = EXIFReader.metadata(of: bytes, layout: layout)
        // Where the marker walk stopped before the frame header, libjpeg-turbo still found it.
        if layout.frame == nil { metadata.originalSize = header.size }
        warnings += metadataWarnings
        let (profile, profileWarning) = ICCProfile.assemble(from: bytes, layout: layout)
        warnings += profileWarning.map { [$0] } ?? []
        timings.metadata += clock.now - start

        // A clean YCbCr or gray photo is decoded strip by strip into the resampler, never held
        // whole, at a DCT scale that leaves the resampler at least half the reduction.
        start = clock.now
        var uploadSize = header.size.fitting(longEdge: configuration.maxEdge)
        let extent: (width: Double, height: Double)
        var stripUpload: PlanarImage?
        var streamedUpload: UnsafeRawBufferPointer?
        if let strips = try stripDecoded(bytes, header: header, layout: layout, to: uploadSize) {
            timings.resample += strips.resampleTime
            timings.decode += strips.decodeTime
            timings.encode += strips.streamTime
            streamedUpload = strips.streamedUpload
            workspace.lastDecode = .init(
                size: strips.decodedSize, isStripWise: true, isCutInTwo: strips.isCutInTwo,
                isUploadStreamed: strips.streamedUpload != nil)
            uploadSize = strips.size
            extent = (Double(uploadSize.width), Double(uploadSize.height))  // Already resampled.
            stripUpload = strips.image
        } else {
            // Else decode once, at the smallest DCT scale that still covers the upload size.
            let denominator = JPEGDecoder.scaleDenominator(
                from: header.size, to: uploadSize, tolerance: configuration.dctScaleTolerance)
            let decodedSize = JPEGDecoder.scaled(header.size, by: denominator)
            if decodedSize.longEdge < uploadSize.longEdge { uploadSize = decodedSize }
            let options = JPEGDecoder.Options(
                scaleDenominator: denominator, acceptsIncompleteData: configuration.acceptsIncompleteData,
                cmykProfile: header.colorModel == .cmyk ? profile : nil,
                isCMYKInverted: layout.segments.contains { $0.marker == JPEGSegment.app14 })
            // One TurboJPEG call with no hook: cancelling is seen before it and after it.
            let decode = try JPEGDecoder.decode(
                bytes, header: header, options: options, decompressor: decompressor, into: workspace.decoded,
                scratch: workspace.scratch, file: file)
            try cancellation.check(file: file)
            workspace.decoded.fillRows(from: decode.rowsWritten)
            workspace.lastDecode = .init(size: decodedSize)
            warnings += decode.warnings
            timings.decode += clock.now - start
            // A side that the DCT scale does not divide decodes to one pixel more than its share
            // (223 px at 1/2 gives 112); the image itself spans 111.5 of them.
            extent = (Double(header.size.width) / Double(denominator), Double(header.size.height) / Double(denominator))
        }

        start = clock.now
        let comments = layout.commentSegments.map { bytes.data(in: $0.bytes) }
        var uploadSegments: [Data] = []
        if let exif = layout.exifSegment(in: bytes) {
            let (segment, warning) = EXIFPatcher.segment(exif, in: bytes, settingPixelSize: uploadSize)
            uploadSegments.append(segment)
            warnings += warning.map { [$0] } ?? []
        }
        timings.metadata += clock.now - start
        try cancellation.check(file: file)
        let gainMap = uploadGainMap(of: bytes, layout: layout, baseSize: header.size, uploadSize: uploadSize)
        try cancellation.check(file: file)  // A gain map stopped by it is a warning, not the photo's end.
        uploadSegments += gainMap?.primarySegments ?? []
        start = clock.now
        if header.colorModel != .cmyk {  // A CMYK profile does not describe the RGB we write.
            uploadSegments += layout.iccSegments(in: bytes).map { bytes.data(in: $0.bytes) }
        }
        uploadSegments += comments
        timings.metadata += clock.now - start
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize, extent: extent, strippedTurn: metadata.orientation ?? .up,
            profile: header.colorModel == .cmyk ? nil : profile, uploadSegments: uploadSegments, comments: comments,
            stripUpload: stripUpload, streamedUpload: streamedUpload, gainMap: gainMap)
    }

    /// Everything after the decode, the same for every format: the upload (resampled, then
    /// turned when the format asks), the display copy and the thumbnail.
    private mutating func makeCopies(of decoded: DecodedPhoto) throws(ImagePrepError) -> PreparedPhoto {
        let lanes = workspace.lanes
        try cancellation.check(file: file)
        let resampledUpload: PlanarImage
        if let stripUpload = decoded.stripUpload {
            resampledUpload = stripUpload
        } else {
            resampledUpload = try resampled(
                workspace.decoded, extent: decoded.extent, to: decoded.uploadSize, into: workspace.upload,
                lanes: configuration.splitsWorkAcrossCores ? lanes : [lanes[0]], timings: &timings, file: file)
            if !workspace.keepsBuffersBetweenPhotos, resampledUpload !== workspace.decoded {
                workspace.decoded.releaseMemory()
            }
        }
        let upload: PlanarImage
        if decoded.uploadTurn == .up {
            upload = resampledUpload
        } else {
            // Into whichever of the two big images the upload is not.
            let start = clock.now
            upload = resampledUpload === workspace.upload ? workspace.decoded : workspace.upload
            try resampledUpload.orient(decoded.uploadTurn, into: upload, file: file)
            timings.rotate += clock.now - start
        }
        let uploadSize = upload.size
        if let uploadSamples, upload.isGray {
            let start = clock.now
            upload.planes[0].map(through: uploadSamples)
            timings.color += clock.now - start
        }

        // The display copy can share the upload's encoded data when it is the same picture.
        let start = clock.now
        var conversion = ColorConverter.DisplayConversion.none
        if let profile = decoded.profile {
            let (found, warning) = ColorConverter.displayConversion(for: profile, isGray: upload.isGray)
            conversion = found
            warnings += warning.map { [$0] } ?? []
        }
        timings.color += clock.now - start
        let displaySize = configuration.displayEdge.map { uploadSize.fitting(longEdge: $0) }
        let thumbnailSize = configuration.thumbnailEdge.map { uploadSize.fitting(longEdge: $0) }
        let displaySharesUpload = displaySize == uploadSize && decoded.strippedTurn == .up && !conversion.isNeeded

        let comments = decoded.comments
        let uploadSegments = decoded.uploadSegments

        let copies = CopyMaker(
            quality: configuration.quality, orientation: decoded.strippedTurn, conversion: conversion,
            comments: comments, file: file, cancellation: cancellation)
        // The display copy's pixels first, in bands on both lanes when the work is split: turning
        // and converting them would otherwise all fall on the display's lane, which also has the
        // longest encode, while the other lane has only the upload's encode and the thumbnail.
        var displayTimings = StageTimings()
        let displayPixels = try displaySize.flatMap { size throws(ImagePrepError) -> PlanarImage? in
            guard !displaySharesUpload else { return nil }
            return try copies.uprightPixels(
                of: upload, size: size, lane: lanes[1],
                workers: configuration.splitsWorkAcrossCores ? lanes : [lanes[1]], timings: &displayTimings)
        }

        // When the display copy has pixels of its own and the work is split, the thumbnail's are
        // made now too, in bands on both lanes, in the upload's lane's buffers: only its small
        // encode is then left, after the display's, and the two lines of work below end together
        // (made on the upload's line, the thumbnail was 3 ms more work for one of them).
        var thumbnailTimings = StageTimings()
        let thumbnailPixels = try thumbnailSize.flatMap { size throws(ImagePrepError) -> PlanarImage? in
            guard displayPixels != nil, configuration.splitsWorkAcrossCores else { return nil }
            return try copies.uprightPixels(
                of: upload, size: size, lane: lanes[0], workers: lanes, timings: &thumbnailTimings)
        }
        timings.add(thumbnailTimings)

        // Then two lines of work, each with its own codec handles and buffers: the upload copy
        // (and the display copy when it shares the upload's data), and the display copy's
        // encode. The thumbnail goes on the line with less to do: the display's when its pixels
        // are made or the display copy shares the upload's data (that line has nothing else),
        // else the upload's.
        let thumbnailLane = displayPixels == nil || thumbnailPixels != nil ? 1 : 0
        let thumbnail = { (lane: Int, timings: inout StageTimings) throws(ImagePrepError) -> EncodedJPEG? in
            guard lane == thumbnailLane, let thumbnailSize else { return nil }
            if let thumbnailPixels {
                return try copies.encodeStripped(thumbnailPixels, lane: lanes[lane], timings: &timings)
            }
            return try copies.strippedCopy(of: upload, size: thumbnailSize, lane: lanes[lane], timings: &timings)
        }
        var uploadTimings = StageTimings()
        let uploadLine = {
            (timings: inout StageTimings) throws(ImagePrepError) -> (files: [Data], thumbnail: EncodedJPEG?) in
            let files = try copies.encodeUpload(
                upload, segments: uploadSegments, sharingDisplay: displaySharesUpload,
                streamed: decoded.uploadTurn == .up ? decoded.streamedUpload : nil, lane: lanes[0], timings: &timings)
            return (files, try thumbnail(0, &timings))
        }
        let displayLine = {
            (timings: inout StageTimings) throws(ImagePrepError) -> (display: EncodedJPEG?, thumbnail: EncodedJPEG?) in
            let display = try displayPixels.map { pixels throws(ImagePrepError) in
                try copies.encodeStripped(pixels, lane: lanes[1], timings: &timings)
            }
            return (display, try thumbnail(1, &timings))
        }
        let (uploadResult, displayResult) = Parallel.run(
            { () throws(ImagePrepError) in try uploadLine(&uploadTimings) },
            { () throws(ImagePrepError) in try displayLine(&displayTimings) },
            concurrently: configuration.splitsWorkAcrossCores)
        let (files, uploadLineThumbnail) = try uploadResult.get()
        let (ownDisplay, displayLineThumbnail) = try displayResult.get()
        let display = displaySharesUpload ? EncodedJPEG(data: files[1], size: uploadSize) : ownDisplay
        let uploadFile = decoded.gainMap.map { MPFIndex.filled(files[0], appending: $0.copy.data) } ?? files[0]
        let thumbnailCopy = uploadLineThumbnail ?? displayLineThumbnail
        timings.add(uploadTimings)
        timings.add(displayTimings)
        workspace.lastTimings = timings
        return PreparedPhoto(
            upload: EncodedJPEG(data: uploadFile, size: uploadSize), display: display, thumbnail: thumbnailCopy,
            metadata: decoded.metadata, warnings: warnings, uploadGainMap: decoded.gainMap?.copy)
    }

    func checkPixelLimit(_ size: PixelSize) throws(ImagePrepError) {
        guard size.pixelCount <= configuration.maxPixels else {
            throw .tooManyPixels(file: file, size: size, limit: configuration.maxPixels)
        }
        guard size.width > 0, size.height > 0 else {
            throw .corruptJPEG(file: file, detail: "the frame header gives a size of \(size)")
        }
    }
}

/// `source` at `size` as 4:2:0 (or gray) planes: `source` itself when it already is that, else
/// resampled into `target`, each plane split into bands across `lanes` (one or two).
///
/// - Parameter extent: how many of `source`'s pixels the picture spans; less than its size when
///   a DCT scale rounded a side up.
func resampled(
    _ source: PlanarImage, extent: (width: Double, height: Double), to size: PixelSize, into target: PlanarImage,
    lanes: [CopyLane], timings: inout StageTimings, file: String
) throws(ImagePrepError) -> PlanarImage {
    if source.size == size, source.isGray || source.subsampling == .quarter { return source }
    let clock = ContinuousClock()
    let start = clock.now
    try target.reshape(size: size, isGray: source.isGray, subsampling: .quarter, file: file)
    for (index, plane) in source.activePlanes.enumerated() {
        let sourceFactor = index == 0 ? ChromaSubsampling.full : source.subsampling
        let targetFactor = index == 0 ? ChromaSubsampling.full : target.subsampling
        let sourceReal = PixelSize(
            width: (source.size.width + sourceFactor.horizontal - 1) / sourceFactor.horizontal,
            height: (source.size.height + sourceFactor.vertical - 1) / sourceFactor.vertical)
        let targetReal = PixelSize(
            width: (size.width + targetFactor.horizontal - 1) / targetFactor.horizontal,
            height: (size.height + targetFactor.vertical - 1) / targetFactor.vertical)
        let scaleX =
            extent.width / Double(size.width)
            * Double(targetFactor.horizontal) / Double(sourceFactor.horizontal)
        let scaleY =
            extent.height / Double(size.height)
            * Double(targetFactor.vertical) / Double(sourceFactor.vertical)
        let targetPlane = target.planes[index]
        // Bands start on a multiple of 8 rows, the resampler's block.
        let split = lanes.count == 1 ? targetReal.height : (targetReal.height / 2 + 7) / 8 * 8
        let bands = [0..<min(split, targetReal.height), min(split, targetReal.height)..<targetReal.height]
        Parallel.forEach(0..<lanes.count) { band in
            lanes[band].resampler.resample(
                plane, size: sourceReal, into: targetPlane, size: targetReal, scaleX: scaleX, scaleY: scaleY,
                rows: lanes.count == 1 ? 0..<targetReal.height : bands[band])
        }
        targetPlane.replicateEdges(fromWidth: targetReal.width, height: targetReal.height)
    }
    timings.resample += clock.now - start
    return target
}

/// Makes the copies of one photo. Holds no buffers: each call is given the lane to work in, so
/// two calls on different lanes can run at once.
private struct CopyMaker {
    let quality: Int
    let orientation: Orientation
    let conversion: ColorConverter.DisplayConversion
    let comments: [Data]
    let file: String
    let cancellation: PreparationCancellation

    /// Encodes the upload copy with its metadata, and with only the comments as the display copy
    /// too when that shares the upload's pixels.
    ///
    /// - Parameter streamed: the upload's file already encoded from these planes, in `lane`'s
    ///   buffer (`JPEGStreamEncoder`), which only needs the metadata put in.
    func encodeUpload(
        _ upload: PlanarImage, segments: [Data], sharingDisplay: Bool, streamed: UnsafeRawBufferPointer?,
        lane: CopyLane, timings: inout StageTimings
    ) throws(ImagePrepError) -> [Data] {
        try cancellation.check(file: file)
        let start = ContinuousClock.now
        let carried =
            [CarriedSegments(segments: segments)] + (sharingDisplay ? [CarriedSegments(segments: comments)] : [])
        defer { timings.encode += ContinuousClock.now - start }
        if let streamed { return carried.map { JPEGEncoder.assemble(streamed, carrying: $0) } }
        return try JPEGEncoder.encode(
            upload, quality: quality, carrying: carried, compressor: Compressor(file: file), buffer: lane.encodeBuffer,
            file: file)
    }

    /// A stripped copy of `upload` at `size`: turned upright, in sRGB, with only the comments.
    func strippedCopy(
        of upload: PlanarImage, size: PixelSize, lane: CopyLane, timings: inout StageTimings
    ) throws(ImagePrepError) -> EncodedJPEG {
        let pixels = try uprightPixels(of: upload, size: size, lane: lane, workers: [lane], timings: &timings)
        return try encodeStripped(pixels, lane: lane, timings: &timings)
    }

    /// The pixels of a stripped copy of `upload` at `size`, turned upright and in sRGB, in
    /// `lane`'s buffers, made in bands of rows by `workers` (one or two lanes) at once.
    ///
    /// The colour conversion works on the planes in place, so it needs a copy of its own: the
    /// turned copy when the photo is turned, else a plain copy (the upload's pixels may still be
    /// read by the other lane).
    func uprightPixels(
        of upload: PlanarImage, size: PixelSize, lane: CopyLane, workers: [CopyLane], timings: inout StageTimings
    ) throws(ImagePrepError) -> PlanarImage {
        try cancellation.check(file: file)
        let source = try resampled(
            upload, extent: upload.extent, to: size, into: lane.resized, lanes: workers, timings: &timings, file: file)
        guard orientation != .up || conversion.isNeeded else { return source }
        let upright = lane.oriented
        try source.reshape(upright, toHold: orientation, file: file)
        // Bands of whole 16-row blocks, so that the chroma bands start on even rows too.
        let height = upright.size.height
        let split = workers.count == 1 ? height : min(height, (height / 2 + 15) / 16 * 16)
        var topTimings = StageTimings()
        var bottomTimings = StageTimings()
        let results = Parallel.run(
            { () throws(ImagePrepError) in
                try makeUpright(source, into: upright, rows: 0..<split, lane: workers[0], timings: &topTimings)
            },
            { () throws(ImagePrepError) in
                try makeUpright(
                    source, into: upright, rows: split..<height, lane: workers.last!, timings: &bottomTimings)
            }, concurrently: workers.count > 1)
        timings.add(topTimings)
        timings.add(bottomTimings)
        try results.0.get()
        try results.1.get()
        upright.replicateEdges()
        return upright
    }

    /// One band of rows of `upright`: turned from `source` and converted, with `lane`'s scratch.
    private func makeUpright(
        _ source: PlanarImage, into upright: PlanarImage, rows: Range<Int>, lane: CopyLane,
        timings: inout StageTimings
    ) throws(ImagePrepError) {
        guard !rows.isEmpty else { return }
        let clock = ContinuousClock()
        var start = clock.now
        source.orient(orientation, into: upright, rows: rows)
        timings.rotate += clock.now - start
        guard conversion.isNeeded else { return }
        start = clock.now
        try conversion.apply(
            to: upright, rows: rows, stripBuffer: lane.scratch, compressor: Compressor(file: file),
            decompressor: Decompressor(file: file), file: file)
        timings.color += clock.now - start
    }

    /// Encodes a stripped copy's upright pixels with only the comments.
    func encodeStripped(_ pixels: PlanarImage, lane: CopyLane, timings: inout StageTimings) throws(ImagePrepError)
        -> EncodedJPEG
    {
        try cancellation.check(file: file)
        let start = ContinuousClock.now
        let data = try JPEGEncoder.encode(
            pixels, quality: quality, carrying: [CarriedSegments(segments: comments)],
            compressor: Compressor(file: file), buffer: lane.encodeBuffer, file: file)[0]
        timings.encode += ContinuousClock.now - start
        return EncodedJPEG(data: data, size: pixels.size)
    }
}
