import Foundation
import Testing

@testable import ImagePrep

/// A prepare whose task is cancelled stops at its next strip (JPEG) or tile (HEIF), throws
/// `CancellationError`, and leaves its workspace as fit for the next photo as a finished one.
///
/// Timings are never asserted (the machine is shared): what is asserted is the work, counted by
/// the run's own flag (`PreparationCancellation.checksPassed`), one check per strip, per piece of
/// data libheif reads (a tile), per encode. The task is cancelled from the worker itself, at a
/// check in the middle of the decode, so that where it stops does not hang on how busy the machine is.
/// The latencies are printed (`swift test … --filter CancellationTests` shows them): from
/// `cancel()` to the check that saw it (the piece of work under way, the worst case), and to
/// the task's end as the test saw it.
@Suite("Cancelling a prepare")
struct CancellationTests {
    /// The two photos the issue names: a 48 MP JPEG and an iPhone's 12 MP HEIC grid, both made here.
    enum Photo: String, CaseIterable, CustomStringConvertible {
        case jpeg48MP = "48 MP JPEG"
        case heic12MP = "12 MP HEIC"

        var description: String { rawValue }

        func data() throws -> Data {
            switch self {
            case .jpeg48MP: try MemoryTests.make48MegapixelJPEG()
            case .heic12MP: try CancellationTests.make12MegapixelHEIC()
            }
        }
    }

    /// An iPhone's 12 MP HEIC layout: a 4032x3024 grid of 8x6 tiles of 512x512, every tile
    /// `heic/large/tile-512x512.heic`, put together by `heic/heifcraft.py` (Python's standard
    /// library only), so that 860 KB need not sit in the repository.
    static func make12MegapixelHEIC() throws -> Data {
        return try TemporaryFolder.with(label: "cancel") { temporary in
            let folder = temporary.url
            let output = folder.appendingPathComponent("grid.heic")
            let tile = Fixtures.url("heic/large/tile-512x512.heic").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                ["python3", "-B", Fixtures.url("heic/heifcraft.py").path, "build", output.path, "--grid", "8x6"]
                + Array(repeating: ["--tile", tile], count: 48).flatMap { $0 } + ["--size", "4032x3024"]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "heifcraft.py failed")
            return try Data(contentsOf: output)
        }
    }

    /// What a run did: how it ended, how many pieces of work it began in all and after the flag
    /// was raised, and the latencies of the cancel.
    struct Run {
        var result: Result<PreparedPhoto, any Error>
        var checks: (total: Int, afterRaise: Int?)
        /// From `cancel()` to the first check that saw it.
        var timeToSee: Duration?
        /// From `cancel()` to the task's end, as this test's task saw it.
        var timeToEnd: Duration?
    }

    /// The task a run cancels, once it exists.
    final class TaskBox: @unchecked Sendable {
        let lock = NSLock()
        var task: Task<PreparedPhoto, any Error>?
        var cancelledAt: ContinuousClock.Instant?
    }

    /// Prepares `data` on a worker (a detached task on the concurrent executor). With
    /// `cancellingAt`, the task is cancelled, by `Task.cancel()`, from the pipeline's thread when
    /// it passes that many checks; 0 cancels it before the prepare starts.
    static func run(
        _ data: Data, name: String, splitsWork: Bool, workspace: PreparationWorkspace? = nil,
        cancellingAt pieces: Int? = nil
    ) async throws -> Run {
        var configuration = PhotoPreparer.Configuration()
        configuration.splitsWorkAcrossCores = splitsWork
        let preparer = try PhotoPreparer(configuration: configuration)
        let box = TaskBox()
        let flag = PreparationCancellation { count in
            guard count == pieces else { return }
            while true {  // the task is stored right after it is made
                let task = box.lock.withLock { () -> Task<PreparedPhoto, any Error>? in
                    if box.task != nil { box.cancelledAt = ContinuousClock.now }
                    return box.task
                }
                guard let task else { continue }
                task.cancel()
                return
            }
        }
        let workspace = workspace ?? PreparationWorkspace(keepsBuffersBetweenPhotos: false)
        let task = box.lock.withLock {
            let task = Task.detached {
                if pieces == 0 { withUnsafeCurrentTask { $0?.cancel() } }
                return try await preparer.cancellable(cancellation: flag) { flag throws(ImagePrepError) in
                    try preparer.prepareBytes(
                        data, name: name, workspace: workspace, readTime: .zero, cancellation: flag)
                }
            }
            box.task = task
            return task
        }
        let result = await task.result
        let ended = ContinuousClock.now
        let cancelledAt = box.lock.withLock { box.cancelledAt }
        return Run(
            result: result, checks: flag.checksPassed, timeToSee: flag.timeToSee,
            timeToEnd: cancelledAt.map { ended - $0 })
    }

    static func milliseconds(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    @Test(
        "cancelled midway, a prepare throws CancellationError and begins no piece of work after the one under way",
        arguments: Photo.allCases, [false, true])
    func cancelledMidway(photo: Photo, splitsWork: Bool) async throws {
        let data = try photo.data()
        let whole = try await Self.run(data, name: "\(photo)", splitsWork: splitsWork)
        _ = try whole.result.get()
        #expect(whole.checks.afterRaise == nil)

        // A third of the JPEG's strips. The HEIF checks are mostly libheif's reads of the boxes
        // (each field read asks its reader), then one per tile, then the encodes: 30 checks from
        // the end is in the middle of the 48 tiles' decode.
        let cancelAt = photo == .jpeg48MP ? whole.checks.total / 3 : whole.checks.total - 30
        let run = try await Self.run(data, name: "\(photo)", splitsWork: splitsWork, cancellingAt: cancelAt)
        #expect(throws: CancellationError.self) { try run.result.get() }
        let afterRaise = try #require(run.checks.afterRaise)
        // The piece whose check made the cancel goes on; every later check stops, but with two
        // threads a check of the other one may read the flag just before it is raised.
        #expect(afterRaise <= (splitsWork ? 1 : 0), "\(afterRaise) pieces begun after the cancel")
        #expect(run.checks.total <= cancelAt + 1, "\(run.checks.total) pieces begun, cancelled at \(cancelAt)")
        #expect(run.timeToSee != nil, "no check saw the cancel")
        print(
            "cancel latency, \(photo), \(splitsWork ? "two threads" : "one thread"): seen \(Self.milliseconds(run.timeToSee))"
                + " after cancel(), task ended \(Self.milliseconds(run.timeToEnd)) after it (cancelled at piece"
                + " \(cancelAt) of \(whole.checks.total))")
    }

    @Test(
        "a task cancelled before the prepare starts throws CancellationError before any work", arguments: Photo.allCases
    )
    func cancelledBeforeStart(photo: Photo) async throws {
        let run = try await Self.run(try photo.data(), name: "\(photo)", splitsWork: false, cancellingAt: 0)
        #expect(throws: CancellationError.self) { try run.result.get() }
        #expect(run.checks.total == 0)
    }

    @Test("the public async forms throw CancellationError for a cancelled task")
    func publicFormsThrowCancellationError() async throws {
        let url = Fixtures.url("heic/large/tile-512x512.heic")
        let data = try Data(contentsOf: url)
        let preparer = PhotoPreparer()
        let bytesTask = Task.detached {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await preparer.prepare(data, name: "camera.heic")
        }
        await #expect(throws: CancellationError.self) { try await bytesTask.value }
        let fileTask = Task.detached {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await preparer.prepare(contentsOf: url)
        }
        await #expect(throws: CancellationError.self) { try await fileTask.value }
        // An uncancelled call is not touched by the handler, and its errors stay ImagePrepError.
        await #expect(throws: ImagePrepError.empty(file: "camera.jpg")) {
            try await preparer.prepare(Data(), name: "camera.jpg")
        }
    }

    @Test(
        "a workspace whose photo was cancelled prepares the next photo as a fresh one does",
        arguments: Photo.allCases)
    func workspaceAfterCancelIsClean(photo: Photo) async throws {
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: true)
        let whole = try await Self.run(try photo.data(), name: "\(photo)", splitsWork: false)
        let cancelled = try await Self.run(
            try photo.data(), name: "\(photo)", splitsWork: false, workspace: workspace,
            cancellingAt: whole.checks.total / 2)
        #expect(throws: CancellationError.self) { try cancelled.result.get() }
        let next = "corpus/orientation-landscape-6.jpg"
        let fresh = try await PhotoPreparer().prepare(Fixtures.data(next), name: next)
        let reused = try await PhotoPreparer().prepare(Fixtures.data(next), name: next, workspace: workspace)
        #expect(reused.upload.data == fresh.upload.data)
        #expect(reused.display?.data == fresh.display?.data)
        #expect(reused.thumbnail?.data == fresh.thumbnail?.data)
        #expect(reused.warnings == fresh.warnings)
    }
}
