/// One row of the main table: a tool or mode over a set of photos.
struct ToolSummary: Sendable, Codable {
    var name: String
    var job: String
    /// Photos per second over the median batch; nil when this row has no batch.
    var batchPhotosPerSecond: Double?
    /// CPU time per photo in that batch form: what other work on the machine disturbs least.
    var batchCPUMSPerPhoto: Double?
    /// Median over photos of each photo's median wall time, one photo per process (or, for the
    /// in-process rows, per call).
    var singleMedianMS: Double?
    /// The 90th percentile over photos of the same per-photo medians.
    var singleP90MS: Double?
    var singleCPUMS: Double?
    /// The largest peak RSS of any single-photo process.
    var peakRSSMB: Double?
    /// Mean bytes of the 2048 copy (the upload copy for ImagePrep).
    var meanKB: Double?
    var meanSSIM: Double?
    /// The largest relative difference of an output side from vipsthumbnail's, over the photos.
    var worstSizeDeviation: Double?
    /// Whether the single-photo figures include starting a process (and so compare with vips').
    var isSubprocess: Bool
}

/// One row of the stage table.
struct StageSummary: Sendable, Codable {
    var name: String
    var photoCount: Int
    var medianMS: Double
    var p90MS: Double
    var cpuMS: Double
    /// Median over photos of each photo's median time in the stage.
    var stageMS: [Stage: Double]
}

/// The rows of one photo above `PhotoSet.largePhotoMegapixels`.
struct LargePhotoSummary: Sendable, Codable {
    var photo: String
    var rows: [ToolSummary]
}

/// One batch form: the whole set of regular photos at once.
struct BatchSummary: Sendable, Codable {
    var name: String
    /// Over the median batch: the headline figure.
    var photosPerSecond: Double
    /// Over the fastest batch: on a shared machine other work only ever adds time, so this is
    /// the closest to what the tool does alone.
    var bestPhotosPerSecond: Double
    var cpuMSPerPhoto: Double
    /// The largest process of the batch; nil in-process.
    var peakRSSMB: Double?
}

/// The photos of one original size (in practice one camera), tool by tool: where a goal missed
/// on average, this says which photos missed it.
struct SizeGroupSummary: Sendable, Codable {
    /// "4032x3024".
    var size: String
    var photoCount: Int
    /// Per command tool name: median over the group of each photo's median wall time.
    var medianMS: [String: Double]
    /// Per command tool name: mean SSIM-Y over the group.
    var meanSSIM: [String: Double]
}

/// The HEIC rows (`--heic`): the tools and the HEVC floor on the same HEIC files.
struct HEICSummary: Sendable, Codable {
    var rows: [ToolSummary]
    /// prep-photo's CPU over the HEVC floor's (`HEICRun.floorRatio`); nil without the floor.
    var floorRatio: Double?
}

/// The figures the report prints and the checks judge, computed from `BenchResults`.
struct Summary: Sendable, Codable {
    /// The 12–16 MP photos.
    var regular: [ToolSummary] = []
    /// Per large photo (file name), its rows.
    var large: [LargePhotoSummary] = []
    var stages: [StageSummary] = []
    /// The regular photos by original size.
    var sizeGroups: [SizeGroupSummary] = []
    /// Every batch form, photos per second and CPU ms per photo.
    var batches: [BatchSummary] = []
    /// The HEIC rows, when the run has them.
    var heic: HEICSummary?
    /// The 200 MP rows (`--huge`).
    var huge: [HugePhotoRow] = []

    /// The vipsthumbnail row of a set, the baseline of every ratio.
    static func vips(in rows: [ToolSummary]) -> ToolSummary? { rows.first { $0.name == "vipsthumbnail" } }

    init(_ results: BenchResults, tools: [CommandTool]) {
        for (name, measurements) in results.batches.sorted(by: { $0.key < $1.key }) {
            guard let wall = measurements.map(\.wallMS).median else { continue }
            let count = Double(measurements[0].photoCount)
            batches.append(
                BatchSummary(
                    name: name, photosPerSecond: count / (wall / 1e3),
                    bestPhotosPerSecond: count / ((measurements.map(\.wallMS).min() ?? .nan) / 1e3),
                    cpuMSPerPhoto: (measurements.map(\.cpuMS).median ?? .nan) / count,
                    peakRSSMB: measurements.compactMap(\.peakRSSMB).max()))
        }
        regular = rows(for: results.regularPhotos, results: results, tools: tools, withBatches: true)
        if let heicResults = results.heic {
            let jobs = Dictionary(uniqueKeysWithValues: regular.map { ($0.name, $0.job) })
            heic = HEICSummary(
                rows: HEICRun.rows(heicResults, toolNames: results.toolNames, jobs: jobs),
                floorRatio: HEICRun.floorRatio(heicResults, tool: CommandTool.checkedName))
        }
        huge = results.huge.map { HugePhotoRun.rows($0, toolNames: results.toolNames) } ?? []
        for photo in results.largePhotos {
            large.append(
                LargePhotoSummary(
                    photo: photo.stem, rows: rows(for: [photo], results: results, tools: tools, withBatches: false)))
        }
        let sizes = Dictionary(grouping: results.regularPhotos) { "\($0.width)x\($0.height)" }.sorted {
            $0.key < $1.key
        }
        for (size, photos) in sizes where sizes.count > 1 {
            var group = SizeGroupSummary(size: size, photoCount: photos.count, medianMS: [:], meanSSIM: [:])
            for tool in tools {
                group.medianMS[tool.name] =
                    photos.compactMap { results.processes[tool.name]?[$0.path]?.map(\.wallMS).median }.median
                group.meanSSIM[tool.name] = photos.compactMap { results.quality[$0.path]?[tool.name]?.ssim }.mean
            }
            sizeGroups.append(group)
        }
        for mode in PreparationMode.allCases {
            guard let all = results.inProcessOneThread[mode] else { continue }
            // All regular photos, then each original size (the DCT scale, and so the work, depends
            // on it), then each large photo.
            let groups =
                [("all \(results.regularPhotos.count)", results.regularPhotos)]
                + (sizes.count > 1 ? sizes.map { ("\($0.key), \($0.value.count)", $0.value) } : [])
                + results.largePhotos.map { ("\($0.width)x\($0.height), \($0.stem)", [$0]) }
            for (label, photos) in groups {
                let paths = Set(photos.map(\.path))
                let chosen = all.filter { paths.contains($0.photo) }
                guard !chosen.isEmpty else { continue }
                let walls = chosen.map(\.medianWallMS)
                var stageMS: [Stage: Double] = [:]
                for stage in Stage.allCases { stageMS[stage] = chosen.map { $0.medianMS(of: stage) }.median }
                stages.append(
                    StageSummary(
                        name: "\(mode.rawValue), \(label)", photoCount: chosen.count, medianMS: walls.median ?? .nan,
                        p90MS: walls.percentile(90) ?? .nan, cpuMS: chosen.map(\.medianCPUMS).median ?? .nan,
                        stageMS: stageMS))
            }
        }
    }

    private func rows(
        for photos: [BenchPhoto], results: BenchResults, tools: [CommandTool], withBatches: Bool
    ) -> [ToolSummary] {
        func batch(_ name: String) -> BatchSummary? { withBatches ? batches.first { $0.name == name } : nil }
        var rows: [ToolSummary] = []
        for tool in tools {
            let perPhoto = photos.compactMap { results.processes[tool.name]?[$0.path] }
            let medians = perPhoto.compactMap { $0.map(\.wallMS).median }
            let qualities = photos.compactMap { results.quality[$0.path]?[tool.name] }
            var ownBatch = batch(BatchName.command(tool))
            if tool.kind == .vipsthumbnail {
                // The faster of vips' two batch forms: the stricter baseline.
                ownBatch = [batch(BatchName.vipsOneProcess), batch(BatchName.vipsProcessPerPhoto)].compactMap { $0 }
                    .max { $0.photosPerSecond < $1.photosPerSecond }
            }
            rows.append(
                ToolSummary(
                    name: tool.name, job: tool.job, batchPhotosPerSecond: ownBatch?.photosPerSecond,
                    batchCPUMSPerPhoto: ownBatch?.cpuMSPerPhoto, singleMedianMS: medians.median,
                    singleP90MS: medians.percentile(90),
                    singleCPUMS: perPhoto.compactMap { $0.map(\.cpuMS).median }.median,
                    peakRSSMB: perPhoto.flatMap { $0.map(\.peakRSSMB) }.max(),
                    meanKB: qualities.map { Double($0.byteCount) / 1024 }.mean,
                    meanSSIM: qualities.count == photos.count ? qualities.compactMap(\.ssim).mean : nil,
                    worstSizeDeviation: worstSizeDeviation(tool: tool.name, photos: photos, results: results),
                    isSubprocess: true))
        }
        for mode in PreparationMode.allCases {
            guard let all = results.inProcess[mode] else { continue }
            let paths = Set(photos.map(\.path))
            let chosen = all.filter { paths.contains($0.photo) }
            let medians = chosen.map(\.medianWallMS)
            rows.append(
                ToolSummary(
                    name: mode.inProcessName, job: "whole job",
                    batchPhotosPerSecond: batch(BatchName.inProcess(mode))?.photosPerSecond,
                    batchCPUMSPerPhoto: batch(BatchName.inProcess(mode))?.cpuMSPerPhoto,
                    singleMedianMS: medians.median, singleP90MS: medians.percentile(90),
                    singleCPUMS: chosen.map(\.medianCPUMS).median, isSubprocess: false))
        }
        return rows
    }

    /// How far `tool`'s output sides are from vipsthumbnail's, comparing long with long and short
    /// with short (vips turns its output upright; the upload copy keeps the stored orientation).
    private func worstSizeDeviation(tool: String, photos: [BenchPhoto], results: BenchResults) -> Double? {
        var worst: Double?
        for photo in photos {
            guard let ours = results.quality[photo.path]?[tool],
                let vips = results.quality[photo.path]?["vipsthumbnail"]
            else { continue }
            let oursSides = [ours.width, ours.height].sorted()
            let vipsSides = [vips.width, vips.height].sorted()
            let deviation = zip(oursSides, vipsSides).map { abs(Double($0) / Double($1) - 1) }.max() ?? 0
            worst = max(worst ?? 0, deviation)
        }
        return worst
    }
}
