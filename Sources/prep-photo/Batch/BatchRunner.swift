import CommandSupport
import Dispatch
import ImagePrep

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prepares a batch on `jobs` threads, each with its own reusable workspace, and reports every
/// result in input order as soon as it and all before it are done.
final class BatchRunner: Sendable {
    struct Settings: Sendable {
        var jobs = 1
        var emitsJSON = false
        var showsProgress = false
        var isQuiet = false
        var isVerbose = false
        var existingCopies = ExistingCopies.refuse
        var writesDisplay = true
        var writesThumbnail = true
    }

    static let namedSubfolders = 5

    private let photos: [PlannedPhoto]
    private let inputIdentities: Set<FileIdentity>
    private let preparer: PhotoPreparer
    /// The same, splitting each photo's work across cores: for the last photos of a batch,
    /// which would otherwise leave the cores of the workers already done idle.
    private let lastPhotosPreparer: PhotoPreparer
    private let settings: Settings
    private let writer: OutputWriter
    private let signals: StopSignals
    private let photoCount: Int
    private let nextIndex = Locked<Int>(0)
    /// Writes and flushes prepared photos' copies, so that a worker goes on to its next photo
    /// instead of waiting for the disk (3–5 ms a photo in fsync and rename, 5 % of a batch). A
    /// serial queue of its own runs on a thread of its own even while every worker is busy.
    private let writing = DispatchQueue(label: "prep-photo.writing")
    private let writesInFlight = DispatchGroup()
    /// At most one photo a worker waits to be written, which bounds the memory they hold.
    private let writingRoom: DispatchSemaphore
    private let state: Locked<State>
    private let started = ContinuousClock.now

    private struct State {
        /// Results done but not yet reported, because one before them is still in flight: a few,
        /// however long the batch.
        var waiting: [Int: PhotoOutcome] = [:]
        var nextToReport = 0
        /// Set when the run is stopped at once and every line is out: nothing is reported after.
        var isClosed = false
        var tally = BatchTally()
        var finishedPhotos = 0
        var warnings = WarningTally()
        var lastProgress = ContinuousClock.now - .seconds(1)
    }

    init(
        plan: BatchPlan.PlannedBatch, preparer: PhotoPreparer, settings: Settings, writer: OutputWriter,
        signals: StopSignals
    ) {
        photos = plan.photos
        inputIdentities = plan.inputIdentities
        self.preparer = preparer
        var splitting = preparer
        splitting.configuration.splitsWorkAcrossCores = true
        lastPhotosPreparer = splitting
        self.settings = settings
        self.writer = writer
        self.signals = signals
        photoCount = plan.photos.count { $0.isPhoto }
        writingRoom = DispatchSemaphore(value: max(1, min(settings.jobs, photoCount)))
        var state = State()
        state.tally.photos = photoCount
        self.state = Locked(state)
    }

    /// Runs the batch until it is done or a signal stops it.
    func run() -> (tally: BatchTally, elapsed: Duration) {
        let jobs = max(1, min(settings.jobs, photoCount))
        let group = DispatchGroup()
        for _ in 0..<jobs {
            DispatchQueue.global().async(group: group) { [self] in work(workers: jobs) }
        }
        group.wait()
        writesInFlight.wait()
        if let signal = signals.stopSignal { reportNotReached(stoppedBy: signal) }
        return state.withLock { state in
            if settings.showsProgress { Terminal.writeError("\r\u{1B}[K") }
            if !settings.isQuiet { Terminal.writeError(state.warnings.lines.joined()) }
            return (state.tally, ContinuousClock.now - started)
        }
    }

    /// How many lines are made at a time for the inputs a stopped run did not reach, so that a
    /// million of them are neither held at once nor written one by one.
    static let unreachedChunk = 4096

    /// Reports every input a stopped run did not reach, in input order: an input decided before
    /// any work has its verdict, as it would have had, and a photo its `not_started` line.
    private func reportNotReached(stoppedBy signal: Int32) {
        var index = state.withLock { $0.nextToReport }
        while index < photos.count {
            let end = min(index + Self.unreachedChunk, photos.count)
            record((index..<end).map { ($0, Self.unreached(photos[$0], signal: signal)) })
            index = end
        }
    }

    /// The outcome of an input never started: its verdict, or `notStarted`.
    private static func unreached(_ photo: PlannedPhoto, signal: Int32) -> PhotoOutcome {
        switch photo.verdict {
        case .skipped(let leftOut): .skipped(leftOut)
        case .failed(let code, let message): .failed(code: code, message: message)
        case nil: .notStarted(signal: signal)
        }
    }

    private func work(workers: Int) {
        // A worker with one photo keeps no buffers for a next one, which lowers its peak memory.
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: photoCount > workers)
        while signals.stopSignal == nil {
            let index = nextIndex.takeNext()
            guard index < photos.count else { return }
            // Once fewer photos are left than workers, the other workers run out of work.
            let isAmongLast = index >= photos.count - (workers - 1)
            switch prepare(photos[index], with: isAmongLast ? lastPhotosPreparer : preparer, workspace: workspace) {
            case .decided(let outcome):
                record(outcome, at: index)
            case .toWrite(let prepared):
                writingRoom.wait()
                writing.async(group: writesInFlight) { [self] in
                    write(prepared, of: photos[index], at: index)
                    writingRoom.signal()
                }
            }
        }
    }

    /// A photo's outcome, or its copies made and still to be written.
    private enum Prepared {
        case decided(PhotoOutcome)
        case toWrite(PreparedPhoto)
    }

    private func prepare(_ photo: PlannedPhoto, with preparer: PhotoPreparer, workspace: PreparationWorkspace)
        -> Prepared
    {
        switch photo.verdict {
        case .skipped(let leftOut): return .decided(.skipped(leftOut))
        case .failed(let code, let message): return .decided(.failed(code: code, message: message))
        case nil: break
        }
        let input = photo.input
        let destinations = photo.copies(
            writesDisplay: settings.writesDisplay, writesThumbnail: settings.writesThumbnail)
        if let decided = checkExisting(destinations, of: photo) { return .decided(decided) }
        if let folder = destinations[0].parent, let error = FileSystem.makeFolders(folder) {
            return .decided(
                .failed(
                    code: "write_failed",
                    message: "'\(input)' was not prepared: could not create the folder '\(folder)': \(error.reason)."
                ))
        }

        let prepared: PreparedPhoto
        do throws(ImagePrepError) {
            let data: Data
            do throws(PhotoFile.Failure) {
                data = try PhotoFile.contents(of: input)
            } catch {
                switch error {
                case .system(let error):
                    throw .unreadable(file: input.description, reason: error.reason)
                case .notRegularFile(let kind):
                    throw .unreadable(
                        file: input.description, reason: kind == .folder ? "it is a folder" : "it is not a regular file"
                    )
                case .tooLarge(let reason):
                    throw .unreadable(file: input.description, reason: reason)
                case .outOfMemory:
                    throw .unreadable(
                        file: input.description, reason: SystemError.outOfMemory("read", path: input.description).reason
                    )
                }
            }
            prepared = try preparer.prepareBlocking(data, name: input.description, workspace: workspace)
        } catch {
            return .decided(.failed(code: error.code, message: error.description))
        }
        return .toWrite(prepared)
    }

    /// Writes a prepared photo's copies, each complete and all together or none, and records the
    /// outcome: a placed photo's under the writer's lock, so that a stop at once still reports it.
    private func write(_ prepared: PreparedPhoto, of photo: PlannedPhoto, at index: Int) {
        let input = photo.input
        // The copies made, each with its place; a copy not asked for is nil and not written.
        let made = [prepared.upload, prepared.display, prepared.thumbnail]
        let suffixes = [BatchPlan.uploadSuffix, BatchPlan.displaySuffix, BatchPlan.thumbnailSuffix]
        let copies = zip(made, suffixes).map { copy, suffix in copy.map { ($0, photo.destination(suffix)) } }
        let written = copies.map { copy in
            copy.map { WrittenCopy(path: $0.1, size: $0.0.size, byteCount: $0.0.data.count) }
        }
        let outcome = PhotoOutcome.prepared(
            .init(
                upload: written[0]!, display: written[1], thumbnail: written[2],
                uploadGainMap: prepared.uploadGainMap.map { ($0.size, $0.data.count) }, metadata: prepared.metadata,
                warnings: prepared.warnings, cameraRawPixels: prepared.cameraRawPixels))
        do throws(OutputWriter.Failure) {
            let staged = try writer.stage(
                copies.compactMap { $0.map { (data: $0.0.data, destination: $0.1) } }, modified: photo.status?.modified)
            try writer.publish(staged, replacing: settings.existingCopies != .refuse) { record(outcome, at: index) }
        } catch {
            record(Self.failure(error, input: input), at: index)
        }
    }

    /// Gives every input not reported yet its JSON line, in input order, when the run is stopped
    /// at once by `signal`: a photo whose copies were placed (or whose outcome was decided) its
    /// own, one in flight `interrupted`, one not reached its verdict or `not_started`. Nothing is
    /// reported after it.
    func reportAllAtOnce(stoppedBy signal: Int32) {
        state.withLock { state in
            state.isClosed = true
            guard settings.emitsJSON else { return }
            let started = nextIndex.withLock { $0 }
            var index = state.nextToReport
            while index < photos.count {
                let end = min(index + Self.unreachedChunk, photos.count)
                let lines = (index..<end).map { index in
                    let outcome =
                        state.waiting[index]
                        ?? (photos[index].verdict == nil && index < started
                            ? .interrupted(signal: signal) : Self.unreached(photos[index], signal: signal))
                    return JSONReport.line(for: photos[index].input, outcome: outcome)
                }
                Terminal.writeOutput(lines.joined(separator: "\n") + "\n")
                index = end
            }
        }
    }

    /// What the copies already there decide, before any work: a photo whose copy would land on
    /// an input, or on a folder, fails; `--skip-existing` keeps a finished photo; by default a
    /// photo any of whose copies exists fails.
    private func checkExisting(_ destinations: [BytePath], of photo: PlannedPhoto) -> PhotoOutcome? {
        let input = photo.input
        var finished = 0
        for destination in destinations {
            guard case .success(let existing) = FileSystem.status(of: destination, followingLinks: false) else {
                continue
            }
            if inputIdentities.contains(existing.identity) {
                return .failed(
                    code: "overwrites_input",
                    message: "'\(input)' was not prepared: its copy '\(destination)' would overwrite an input.")
            }
            if existing.kind == .folder {
                return .failed(
                    code: "write_failed",
                    message:
                        "'\(input)' was not prepared: its copy cannot be written to '\(destination)': \(SystemError.isAFolder("open", path: destination.description).reason)."
                )
            }
            switch settings.existingCopies {
            case .refuse:
                return .failed(
                    code: "output_exists",
                    message:
                        "'\(input)' was not prepared: its copy '\(destination)' already exists; pass --skip-existing to keep finished photos, or --overwrite to replace them."
                )
            case .skipFinished:
                // A copy carries its input's modification time (`OutputWriter.stage`): one at least
                // as new as the input was made from it, or after it, by this version or an earlier one.
                if existing.kind == .regular, existing.modified >= photo.status!.modified { finished += 1 }
            case .replace:
                break
            }
        }
        return finished == destinations.count ? .alreadyPrepared(Self.readAgain(photo, settings: settings)) : nil
    }

    /// What a kept photo's line says, read again without making a copy: each copy's size from its
    /// frame header and its length, the upload's gain map, and the photo's metadata with the
    /// warnings met reading it (`PhotoMetadata.read(from:)`: a JPEG's or a HEIF file's without a
    /// decode, another format's with one, whose warnings it then gives too). What cannot be read
    /// again (a copy or the photo removed meanwhile or unreadable, a copy that is not a JPEG, a
    /// photo that is not one any more) is null.
    private static func readAgain(_ photo: PlannedPhoto, settings: Settings) -> PhotoOutcome.Prepared {
        func copy(_ suffix: String) -> (WrittenCopy, JPEGCopyHeader?) {
            let path = photo.destination(suffix)
            guard let data = try? PhotoFile.contents(of: path) else {
                return (WrittenCopy(path: path, size: nil, byteCount: nil), nil)
            }
            let header = JPEGCopyHeader.read(data)
            return (WrittenCopy(path: path, size: header?.size, byteCount: data.count), header)
        }
        let (upload, uploadHeader) = copy(BatchPlan.uploadSuffix)
        // A photo with no size to read is no photo any more (changed since, its time put back).
        let read = (try? PhotoFile.contents(of: photo.input)).map { PhotoMetadata.read(from: $0) }
            .flatMap { $0.metadata.originalSize.pixelCount > 0 ? $0 : nil }
        return PhotoOutcome.Prepared(
            upload: upload, display: settings.writesDisplay ? copy(BatchPlan.displaySuffix).0 : nil,
            thumbnail: settings.writesThumbnail ? copy(BatchPlan.thumbnailSuffix).0 : nil,
            uploadGainMap: uploadHeader?.gainMap.map { ($0.size, $0.byteCount) }, metadata: read?.metadata,
            warnings: read?.warnings ?? [])
    }

    private static func failure(_ error: OutputWriter.Failure, input: BytePath) -> PhotoOutcome {
        switch error {
        case .cannotWrite(let path, let error):
            .failed(
                code: "write_failed", message: "'\(input)' was prepared but could not write '\(path)': \(error.reason)."
            )
        case .cannotMove(let path, let error):
            .failed(
                code: "write_failed",
                message: "'\(input)' was prepared but could not move the finished copy to '\(path)': \(error.reason).")
        case .appeared(let path):
            .failed(
                code: "output_exists",
                message:
                    "'\(input)' was prepared but its copy '\(path)' appeared meanwhile, made by another process; nothing was replaced."
            )
        }
    }

    /// Stores a result and reports every result that is now next in input order.
    private func record(_ outcome: PhotoOutcome, at index: Int) {
        record([(index, outcome)])
    }

    /// Stores results and reports every result that is now next in input order.
    private func record(_ outcomes: [(index: Int, outcome: PhotoOutcome)]) {
        state.withLock { state in
            guard !state.isClosed else { return }
            for (index, outcome) in outcomes {
                state.waiting[index] = outcome
                // The progress line counts what was done.
                if case .notStarted = outcome { continue }
                if photos[index].isPhoto { state.finishedPhotos += 1 }
            }
            var lines: [String] = []
            var messages: [String] = []
            while let ready = state.waiting.removeValue(forKey: state.nextToReport) {
                let photo = photos[state.nextToReport]
                if settings.emitsJSON { lines.append(JSONReport.line(for: photo.input, outcome: ready)) }
                switch ready {
                case .failed(_, let message):
                    state.tally.failed += 1
                    messages.append("prep-photo: error: \(message)")
                case .skipped(let leftOut):
                    state.tally.skipped[leftOut.cause, default: 0] += 1
                    if leftOut.cause == .subfolder, state.tally.subfoldersNamed.count < Self.namedSubfolders {
                        state.tally.subfoldersNamed.append(photo.input)
                    }
                    if settings.isVerbose {
                        messages.append("prep-photo: skipped: \(leftOut.message(about: photo.input))")
                    }
                case .notStarted, .interrupted:
                    state.tally.notStarted += 1
                case .alreadyPrepared:
                    state.tally.alreadyPrepared += 1
                    if settings.isVerbose {
                        messages.append(
                            "prep-photo: skipped: '\(photo.input)' is already prepared (its copies are as new as it).")
                    }
                case .prepared(let prepared):
                    state.tally.prepared += 1
                    guard !settings.isQuiet else { break }
                    for warning in prepared.warnings {
                        if settings.isVerbose || !state.warnings.add(warning.message, from: photo.input) {
                            messages.append("prep-photo: warning: '\(photo.input)': \(warning.message)")
                        }
                    }
                }
                state.nextToReport += 1
            }
            if settings.showsProgress, !messages.isEmpty { Terminal.writeError("\r\u{1B}[K") }
            if !messages.isEmpty { Terminal.writeError(messages.joined(separator: "\n") + "\n") }
            if !lines.isEmpty { Terminal.writeOutput(lines.joined(separator: "\n") + "\n") }
            let now = ContinuousClock.now
            if settings.showsProgress,
                now - state.lastProgress >= .milliseconds(100) || state.finishedPhotos == photoCount
            {
                state.lastProgress = now
                Terminal.writeError(
                    "\r\u{1B}[K" + progressLine(finished: state.finishedPhotos, failed: state.tally.failed, now: now))
            }
        }
    }

    private func progressLine(finished: Int, failed: Int, now: ContinuousClock.Instant) -> String {
        let seconds = Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds)
        let rate = seconds > 0 ? Double(finished) / seconds : 0
        let remaining = rate > 0 ? Int((Double(photoCount - finished) / rate).rounded(.up)) : 0
        var line = "\(finished)/\(photoCount) photos, \(Terminal.format(rate)) photos/s, ETA \(remaining / 60):"
        line += (remaining % 60 < 10 ? "0" : "") + "\(remaining % 60)"
        if failed > 0 { line += ", \(failed) failed" }
        return line
    }
}
