import Dispatch
import ImagePrep
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A copy that was written, as the report describes it.
struct WrittenCopy: Sendable {
    let path: String
    let size: PixelSize
    let byteCount: Int
}

/// What became of one input.
enum PhotoOutcome: Sendable {
    struct Prepared: Sendable {
        let upload: WrittenCopy
        let display: WrittenCopy?
        let thumbnail: WrittenCopy?
        let metadata: PhotoMetadata
        let warnings: [PhotoWarning]
    }

    case prepared(Prepared)
    case failed(String)
}

/// Prepares a batch on `jobs` threads, each with its own reusable workspace, and reports every
/// result in input order as soon as it and all before it are done.
final class BatchRunner: Sendable {
    private let photos: [PlannedPhoto]
    private let preparer: PhotoPreparer
    private let jobs: Int
    private let emitsJSON: Bool
    private let showsProgress: Bool
    private let nextIndex = Atomic<Int>(0)
    private let state: Mutex<State>
    private let started = ContinuousClock.now

    private struct State {
        var outcomes: [PhotoOutcome?]
        var nextToReport = 0
        var finished = 0
        var failed = 0
        var lastProgress = ContinuousClock.now - .seconds(1)
    }

    init(photos: [PlannedPhoto], preparer: PhotoPreparer, jobs: Int, emitsJSON: Bool, showsProgress: Bool) {
        self.photos = photos
        self.preparer = preparer
        self.jobs = max(1, min(jobs, photos.count))
        self.emitsJSON = emitsJSON
        self.showsProgress = showsProgress
        state = Mutex(State(outcomes: Array(repeating: nil, count: photos.count)))
    }

    /// Runs the batch and returns how many photos failed.
    func run() -> (failed: Int, elapsed: Duration) {
        let group = DispatchGroup()
        for _ in 0..<jobs {
            DispatchQueue.global().async(group: group) { [self] in work() }
        }
        group.wait()
        if showsProgress { Terminal.writeError("\r\u{1B}[K") }
        return (state.withLock { $0.failed }, ContinuousClock.now - started)
    }

    private func work() {
        // A worker with one photo keeps no buffers for a next one, which lowers its peak memory.
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: photos.count > jobs)
        while true {
            let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < photos.count else { return }
            let outcome = prepare(photos[index], workspace: workspace)
            record(outcome, at: index)
        }
    }

    private func prepare(_ photo: PlannedPhoto, workspace: PreparationWorkspace) -> PhotoOutcome {
        if let refusal = photo.refusal { return .failed(refusal) }
        var written: [URL] = []
        do {
            let prepared = try preparer.prepare(contentsOf: URL(fileURLWithPath: photo.input), workspace: workspace)
            func write(_ copy: EncodedJPEG, to url: URL) throws(OutputWriter.WriteError) -> WrittenCopy {
                try OutputWriter.write(copy.data, to: url)
                written.append(url)
                return WrittenCopy(path: url.relativePath, size: copy.size, byteCount: copy.data.count)
            }
            let upload = try write(prepared.upload, to: photo.upload)
            let display = try prepared.display.map { try write($0, to: photo.display) }
            let thumbnail = try prepared.thumbnail.map { try write($0, to: photo.thumbnail) }
            return .prepared(
                .init(
                    upload: upload, display: display, thumbnail: thumbnail, metadata: prepared.metadata,
                    warnings: prepared.warnings))
        } catch let error as ImagePrepError {
            return .failed(error.description)
        } catch let error as OutputWriter.WriteError {
            // A photo whose copies cannot all be written leaves none: the report says it failed.
            for url in written { unlink(url.path) }
            return .failed("'\(photo.input)' was prepared but \(error.message).")
        } catch {
            return .failed("'\(photo.input)': \(error)")
        }
    }

    /// Stores a result and reports every result that is now next in input order.
    private func record(_ outcome: PhotoOutcome, at index: Int) {
        state.withLock { state in
            state.outcomes[index] = outcome
            state.finished += 1
            if case .failed = outcome { state.failed += 1 }
            var lines: [String] = []
            var messages: [String] = []
            while state.nextToReport < photos.count, let ready = state.outcomes[state.nextToReport] {
                let photo = photos[state.nextToReport]
                if emitsJSON { lines.append(JSONReport.line(for: photo, outcome: ready)) }
                switch ready {
                case .failed(let message): messages.append("prep-photo: error: \(message)")
                case .prepared(let prepared):
                    messages += prepared.warnings.map { "prep-photo: warning: '\(photo.input)': \($0.message)" }
                }
                state.outcomes[state.nextToReport] = .failed("")  // reported; keep no copy around
                state.nextToReport += 1
            }
            if showsProgress, !messages.isEmpty { Terminal.writeError("\r\u{1B}[K") }
            if !messages.isEmpty { Terminal.writeError(messages.joined(separator: "\n") + "\n") }
            if !lines.isEmpty { Terminal.writeOutput(lines.joined(separator: "\n") + "\n") }
            let now = ContinuousClock.now
            if showsProgress, now - state.lastProgress >= .milliseconds(100) || state.finished == photos.count {
                state.lastProgress = now
                Terminal.writeError(
                    "\r\u{1B}[K" + progressLine(finished: state.finished, failed: state.failed, now: now))
            }
        }
    }

    private func progressLine(finished: Int, failed: Int, now: ContinuousClock.Instant) -> String {
        let seconds = Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds)
        let rate = seconds > 0 ? Double(finished) / seconds : 0
        let remaining = rate > 0 ? Int((Double(photos.count - finished) / rate).rounded(.up)) : 0
        var line = "\(finished)/\(photos.count) photos, \(Terminal.format(rate)) photos/s, ETA \(remaining / 60):"
        line += (remaining % 60 < 10 ? "0" : "") + "\(remaining % 60)"
        if failed > 0 { line += ", \(failed) failed" }
        return line
    }
}

/// Writing to the standard streams without the C globals, which Swift 6 does not allow.
enum Terminal {
    static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }
    static func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }
    static var isErrorATerminal: Bool { isatty(STDERR_FILENO) == 1 }

    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
