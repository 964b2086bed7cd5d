import Foundation
import ImagePrep

/// The stages of the whole job as the report names them: ImagePrep's own `StageTimings`, the
/// writing that the benchmark times itself, and what no stage accounts for.
enum Stage: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable {
    case read, decode, resample, rotate, color, encode, metadata, write
    /// Wall time outside every stage: allocating the result, TurboJPEG handles, copies of `Data`.
    /// Negative when the photo's work is split across threads, whose stage times then add up.
    case other
}

/// One timed run of the whole job on one photo.
struct JobSample: Sendable, Codable {
    var wallMS: Double
    var cpuMS: Double
    var stageMS: [Stage: Double]
}

/// Every timed run of one photo in one process.
struct InProcessPhotoResult: Sendable, Codable {
    var photo: String
    var samples: [JobSample]

    var medianWallMS: Double { samples.map(\.wallMS).median ?? .nan }
    var medianCPUMS: Double { samples.map(\.cpuMS).median ?? .nan }
    func medianMS(of stage: Stage) -> Double { samples.map { $0.stageMS[stage] ?? 0 }.median ?? .nan }
}

/// One whole batch: wall time from the first photo started to the last one written.
struct BatchMeasurement: Sendable, Codable {
    var photoCount: Int
    var wallMS: Double
    var cpuMS: Double
    /// Only for child processes; nil in-process, where the benchmark's own memory would count.
    var peakRSSMB: Double?

    var photosPerSecond: Double { Double(photoCount) / (wallMS / 1e3) }
}

/// Times ImagePrep inside this process: the library's cost without process start-up.
enum InProcessRun {
    /// Runs the whole job (prepare and write the three copies) on each photo once to warm up, then
    /// `runs` times, one photo at a time on this thread with one reused workspace, as a batch
    /// worker would.
    static func timePhotos(
        _ photos: [BenchPhoto], preparer: PhotoPreparer, runs: Int, outputFolder: String
    ) throws(BenchError) -> [InProcessPhotoResult] {
        let workspace = PreparationWorkspace()
        var results: [InProcessPhotoResult] = []
        for photo in photos {
            _ = try runJob(photo, preparer: preparer, workspace: workspace, outputFolder: outputFolder)
            var samples: [JobSample] = []
            for _ in 0..<runs {
                samples.append(try runJob(photo, preparer: preparer, workspace: workspace, outputFolder: outputFolder))
            }
            results.append(InProcessPhotoResult(photo: photo.path, samples: samples))
        }
        return results
    }

    /// Prepares and writes every photo on `workers` threads, each with its own workspace, the
    /// way `prep-photo` runs a batch, and times the whole.
    static func timeBatch(
        _ photos: [BenchPhoto], preparer: PhotoPreparer, workers: Int, outputFolder: String
    ) throws(BenchError) -> BatchMeasurement {
        let firstFailure = Locked<BenchError?>(nil)
        let cpuBefore = ProcessClock.cpuMilliseconds()
        let start = ContinuousClock.now
        ParallelWorkers.forEach(
            itemCount: photos.count, workers: workers, makeState: { PreparationWorkspace() },
            body: {
                workspace, index in
                do {
                    let prepared = try preparer.prepareBlocking(
                        contentsOf: URL(fileURLWithPath: photos[index].path), workspace: workspace)
                    try CopyWriter.write(prepared, stem: photos[index].stem, into: outputFolder)
                } catch let error as BenchError {
                    firstFailure.withLock { $0 = $0 ?? error }
                } catch {
                    firstFailure.withLock { $0 = $0 ?? .preparationFailed(detail: "\(error)") }
                }
            })
        let wall = ContinuousClock.now - start
        if let failure = firstFailure.withLock({ $0 }) { throw failure }
        return BatchMeasurement(
            photoCount: photos.count, wallMS: wall.milliseconds, cpuMS: ProcessClock.cpuMilliseconds() - cpuBefore,
            peakRSSMB: nil)
    }

    private static func runJob(
        _ photo: BenchPhoto, preparer: PhotoPreparer, workspace: PreparationWorkspace, outputFolder: String
    ) throws(BenchError) -> JobSample {
        let clock = ContinuousClock()
        let cpuBefore = ProcessClock.cpuMilliseconds()
        let start = clock.now
        let prepared: PreparedPhoto
        do {
            prepared = try preparer.prepareBlocking(contentsOf: URL(fileURLWithPath: photo.path), workspace: workspace)
        } catch {
            throw .preparationFailed(detail: error.description)
        }
        let writeStart = clock.now
        try CopyWriter.write(prepared, stem: photo.stem, into: outputFolder)
        let end = clock.now
        let cpu = ProcessClock.cpuMilliseconds() - cpuBefore

        let timings = workspace.lastTimings
        var stages: [Stage: Double] = [
            .read: timings.read.milliseconds, .decode: timings.decode.milliseconds,
            .resample: timings.resample.milliseconds, .rotate: timings.rotate.milliseconds,
            .color: timings.color.milliseconds, .encode: timings.encode.milliseconds,
            .metadata: timings.metadata.milliseconds, .write: (end - writeStart).milliseconds,
        ]
        let wall = (end - start).milliseconds
        stages[.other] = wall - stages.values.reduce(0, +)
        return JobSample(wallMS: wall, cpuMS: cpu, stageMS: stages)
    }
}
