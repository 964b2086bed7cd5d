import Foundation

/// Times command-line tools as users run them: a process per photo, and a whole folder at once.
enum SubprocessRun {
    /// Every tool on every photo, one process at a time: one warm-up round, then `runs` rounds.
    /// Within a round each photo goes through all tools before the next photo, so that load from
    /// other people's work on the machine falls on every tool alike.
    ///
    /// - Returns: per tool name, per photo path, the timed runs. The last run's outputs stay in
    ///   `folder(tool, photo)` for the quality pass.
    static func timePhotos(
        _ photos: [BenchPhoto], tools: [CommandTool], runs: Int, launcher: SpawnHelperPool,
        folder: (CommandTool, BenchPhoto) -> String, progress: (String) -> Void
    ) throws(BenchError) -> [String: [String: [ProcessMeasurement]]] {
        var results: [String: [String: [ProcessMeasurement]]] = [:]
        for round in 0...runs {
            for photo in photos {
                for tool in tools {
                    let outputFolder = folder(tool, photo)
                    let measurement = try launcher.run(
                        tool.arguments(for: photo, into: outputFolder), stderrPath: "\(outputFolder)/stderr.txt")
                    if round > 0 { results[tool.name, default: [:]][photo.path, default: []].append(measurement) }
                }
            }
            progress(
                round == 0 ? "one photo per process: warm-up done" : "one photo per process: round \(round)/\(runs)")
        }
        return results
    }

    /// The whole folder in one invocation of `tool`.
    static func timeBatch(
        _ photos: [BenchPhoto], tool: CommandTool, launcher: SpawnHelperPool, into folder: String
    ) throws(BenchError) -> BatchMeasurement {
        let measurement = try launcher.run(
            tool.batchArguments(for: photos, into: folder), stderrPath: "\(folder)/stderr.txt")
        return BatchMeasurement(
            photoCount: photos.count, wallMS: measurement.wallMS, cpuMS: measurement.cpuMS,
            peakRSSMB: measurement.peakRSSMB)
    }

    /// The whole folder as one process per photo, `workers` at a time, like `xargs -P`: how
    /// bench.py's "batch img/s" column runs a peer.
    static func timeProcessPerPhotoBatch(
        _ photos: [BenchPhoto], tool: CommandTool, launcher: SpawnHelperPool, workers: Int, into folder: String
    ) throws(BenchError) -> BatchMeasurement {
        let measurements = Locked<[ProcessMeasurement]>([])
        let firstFailure = Locked<BenchError?>(nil)
        let start = ContinuousClock.now
        ParallelWorkers.forEach(
            itemCount: photos.count, workers: workers, makeState: {},
            body: { _, index in
                do throws(BenchError) {
                    let measurement = try launcher.run(
                        tool.arguments(for: photos[index], into: folder), stderrPath: "\(folder)/stderr-\(index).txt")
                    measurements.withLock { $0.append(measurement) }
                } catch {
                    firstFailure.withLock { $0 = $0 ?? error }
                }
            })
        let wall = ContinuousClock.now - start
        if let failure = firstFailure.withLock({ $0 }) { throw failure }
        let all = measurements.withLock { $0 }
        return BatchMeasurement(
            photoCount: photos.count, wallMS: wall.milliseconds, cpuMS: all.map(\.cpuMS).reduce(0, +),
            peakRSSMB: all.map(\.peakRSSMB).max())
    }
}
