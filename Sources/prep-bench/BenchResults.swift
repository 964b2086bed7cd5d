import Foundation

/// Every raw number of one benchmark run: what `--json` writes, and what the summary and the
/// checks are computed from.
struct BenchResults: Codable, Sendable {
    /// When the run started, ISO 8601 in UTC.
    var date: String
    var host: String
    var cores: Int
    /// /proc/loadavg at the start and at the end: how busy the shared machine was.
    var loadAverageAtStart: String
    var loadAverageAtEnd: String
    var runs: Int
    var batchRuns: Int
    var jobs: Int
    /// The command tools in the order of the table, vipsthumbnail first.
    var toolNames: [String]
    /// Per tool name, its command for the first photo.
    var commands: [String: [String]]
    /// The peak RSS `/bin/true` reports when started like the timed commands: no command can
    /// report less (see `SpawnHelper`).
    var harnessRSSFloorMB: Double

    var regularPhotos: [BenchPhoto]
    var largePhotos: [BenchPhoto]

    /// Per mode, per photo: the whole job inside this process, one photo at a time, split across
    /// cores as an app waiting for one photo would run it.
    var inProcess: [PreparationMode: [InProcessPhotoResult]] = [:]
    /// The same on one thread, where the stages add up to the whole job: the stage breakdown.
    var inProcessOneThread: [PreparationMode: [InProcessPhotoResult]] = [:]
    /// Per batch name (see `BatchName`), every timed batch of the regular photos.
    var batches: [String: [BatchMeasurement]] = [:]
    /// Per tool name, per photo path: one photo per process.
    var processes: [String: [String: [ProcessMeasurement]]] = [:]
    /// Per photo path, per tool name: the output of the last single-photo run against the reference.
    var quality: [String: [String: QualityResult]] = [:]
    /// prep-photo's peak memory at every edge (see `EdgeMemoryRun`); nil in runs from before it.
    var edgeMemory: [EdgeMemoryResult]?
    /// The HEIC rows, when `--heic` was given.
    var heic: HEICResults?
    /// The 200 MP rows, when `--huge` was given.
    var huge: HugePhotoResults?
}

extension BenchResults {
    /// The results in a file that `--json` wrote, for `--report`.
    static func load(_ path: String) throws(BenchError) -> BenchResults {
        struct Saved: Decodable {
            let results: BenchResults
        }
        do {
            return try JSONDecoder().decode(Saved.self, from: Data(contentsOf: URL(fileURLWithPath: path))).results
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }
}

/// The names of the batch forms, as keys and as table labels.
enum BatchName {
    static let vipsOneProcess = "vipsthumbnail, all files in one process"
    static let vipsProcessPerPhoto = "vipsthumbnail, a process per photo"
    static func command(_ tool: CommandTool) -> String { "\(tool.name), all files in one process" }
    static func inProcess(_ mode: PreparationMode) -> String { "\(mode.inProcessName), a workspace per worker" }
}
