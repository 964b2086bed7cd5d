import Foundation
import ImagePrep

/// The HEIC rows: prep-photo's whole job and vipsthumbnail's 2048 copy on the same HEIC files
/// (`Benchmarks/make-heic.sh` makes them from the JPEGs, laid out as an iPhone writes HEIC).
struct HEICResults: Codable, Sendable {
    var photos: [BenchPhoto]
    /// Per tool name, per photo path: one photo per process.
    var processes: [String: [String: [ProcessMeasurement]]] = [:]
    /// Per tool name: each timed batch of all the HEIC files in one process.
    var batches: [String: [BatchMeasurement]] = [:]
    /// Per tool name: the mean size of the 2048 copies of the last single-photo runs, in KB.
    var meanKB: [String: Double] = [:]
    /// ImagePrep in this process on one thread, for the stage breakdown.
    var inProcessOneThread: [InProcessPhotoResult] = []
    /// The HEVC floor's tool name (`dec265 -t 0`), when it ran: its rows are in `processes`.
    var floorTool: String?
}

enum HEICRun {
    /// Every `.heic`, `.heif` and `.avif` in `folder`, sized as stored (what ImagePrep reads).
    static func loadPhotos(folder: String) throws(BenchError) -> [BenchPhoto] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { name in
                !name.hasPrefix(".")
                    && ["heic", "heif", "avif"].contains(URL(fileURLWithPath: name).pathExtension.lowercased())
            }.sorted()
        } catch {
            throw .unreadable(path: folder, reason: error.localizedDescription)
        }
        guard !names.isEmpty else { throw .noPhotos(folder: folder) }
        return try names.map { name throws(BenchError) in
            try BenchPhoto.read(URL(fileURLWithPath: folder).appendingPathComponent(name).path)
        }
    }

    /// One photo per process, the tools interleaved (a warm-up round, then `runs`), then
    /// `batchRuns` batches of the whole set per tool, as for the JPEGs. The HEVC floor, when
    /// given, is timed with the photos one at a time, never as a batch.
    static func measure(
        _ photos: [BenchPhoto], tools: [CommandTool], runs: Int, batchRuns: Int, launcher: SpawnHelperPool,
        work: String, progress: (String) -> Void
    ) throws(BenchError) -> HEICResults {
        var results = HEICResults(photos: photos)
        func folder(_ parts: String...) throws(BenchError) -> String {
            let path = ([work, "heic"] + parts).joined(separator: "/")
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw .cannotWrite(path: path, reason: error.localizedDescription)
            }
            return path
        }
        func singleFolder(_ tool: CommandTool, _ photo: BenchPhoto) -> String {
            "\(work)/heic/single/\(tool.name.replacingOccurrences(of: " ", with: ""))/\(photo.stem)"
        }
        for tool in tools {
            for photo in photos {
                _ = try folder("single", tool.name.replacingOccurrences(of: " ", with: ""), photo.stem)
            }
        }
        results.inProcessOneThread = try InProcessRun.timePhotos(
            photos, preparer: PreparationMode.exact.preparer(splitsWork: false),
            runs: runs, outputFolder: try folder("in-process"))
        progress("HEIC in-process: done")
        results.processes = try SubprocessRun.timePhotos(
            photos, tools: tools, runs: runs, launcher: launcher, folder: singleFolder,
            progress: { progress("HEIC, \($0)") })
        for tool in tools where tool.kind != .hevcFloor {
            let sizes = photos.compactMap { photo in
                (try? FileManager.default.attributesOfItem(
                    atPath: tool.uploadPath(for: photo, in: singleFolder(tool, photo))))?[
                        .size] as? Int
            }
            results.meanKB[tool.name] = sizes.map { Double($0) / 1024 }.mean
        }
        results.floorTool = tools.first { $0.kind == .hevcFloor }?.name
        for round in 1...batchRuns {
            for tool in tools where tool.kind != .hevcFloor {
                results.batches[tool.name, default: []].append(
                    try SubprocessRun.timeBatch(
                        photos, tool: tool, launcher: launcher,
                        into: try folder("batch", tool.name.replacingOccurrences(of: " ", with: ""))))
            }
            progress("HEIC batches: round \(round)/\(batchRuns)")
        }
        return results
    }

    /// The stage table's row: where the whole job's time goes for HEIC.
    static func stageRow(_ results: HEICResults) -> StageSummary? {
        let chosen = results.inProcessOneThread
        guard !chosen.isEmpty else { return nil }
        var stageMS: [Stage: Double] = [:]
        for stage in Stage.allCases { stageMS[stage] = chosen.map { $0.medianMS(of: stage) }.median }
        let walls = chosen.map(\.medianWallMS)
        return StageSummary(
            name: "exact, HEIC, all \(chosen.count)", photoCount: chosen.count, medianMS: walls.median ?? .nan,
            p90MS: walls.percentile(90) ?? .nan, cpuMS: chosen.map(\.medianCPUMS).median ?? .nan, stageMS: stageMS)
    }

    /// Whether every photo has the Annex B stream of its tiles beside it, for the HEVC floor.
    static func haveStreams(_ photos: [BenchPhoto]) -> Bool {
        photos.allSatisfy { FileManager.default.fileExists(atPath: CommandTool.hevcStream(of: $0)) }
    }

    /// The whole job's CPU over the HEVC floor's, each the median over photos of each photo's
    /// median: what the whole job costs beyond the decode it cannot avoid.
    static func floorRatio(_ results: HEICResults, tool: String) -> Double? {
        guard let floor = results.floorTool else { return nil }
        func cpu(_ name: String) -> Double? {
            results.photos.compactMap { results.processes[name]?[$0.path]?.map(\.cpuMS).median }.median
        }
        guard let ours = cpu(tool), let theirs = cpu(floor), theirs > 0 else { return nil }
        return ours / theirs
    }

    /// A row of the main table per tool, the figures made as for the JPEG rows.
    static func rows(_ results: HEICResults, toolNames: [String], jobs: [String: String]) -> [ToolSummary] {
        (toolNames + (results.floorTool.map { [$0] } ?? [])).compactMap { name in
            guard let runs = results.processes[name] else { return nil }
            let perPhoto = results.photos.compactMap { runs[$0.path] }
            let batches = results.batches[name] ?? []
            let count = Double(results.photos.count)
            return ToolSummary(
                name: name, job: jobs[name] ?? CommandTool(kind: .hevcFloor, executable: "", jobs: 0).job,
                batchPhotosPerSecond: batches.map(\.wallMS).median.map { count / ($0 / 1e3) },
                batchCPUMSPerPhoto: batches.map(\.cpuMS).median.map { $0 / count },
                singleMedianMS: perPhoto.compactMap { $0.map(\.wallMS).median }.median,
                singleP90MS: perPhoto.compactMap { $0.map(\.wallMS).median }.percentile(90),
                singleCPUMS: perPhoto.compactMap { $0.map(\.cpuMS).median }.median,
                peakRSSMB: perPhoto.flatMap { $0.map(\.peakRSSMB) }.max(), meanKB: results.meanKB[name], meanSSIM: nil,
                worstSizeDeviation: nil, isSubprocess: true)
        }
    }
}
