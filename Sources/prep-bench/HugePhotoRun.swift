import Foundation
import ImagePrep

/// The 200 MP rows: prep-photo and vipsthumbnail on photos of about 200 MP (a JPEG and a HEIC
/// from `Benchmarks/make-200mp.sh`), one process per run, with their peak memory. No SSIM: its
/// float reference of such a photo would take gigabytes.
struct HugePhotoResults: Codable, Sendable {
    var photos: [BenchPhoto]
    /// Per tool name, per photo path: one photo per process.
    var processes: [String: [String: [ProcessMeasurement]]] = [:]
}

enum HugePhotoRun {
    /// The photos at `paths`, sized as stored (what ImagePrep reads, JPEG or HEIF).
    static func loadPhotos(_ paths: [String]) throws(BenchError) -> [BenchPhoto] {
        try paths.map { path throws(BenchError) in try BenchPhoto.read(path) }
    }

    /// Each photo through each tool, interleaved: a warm-up round, then `runs`.
    static func measure(
        _ photos: [BenchPhoto], tools: [CommandTool], runs: Int, launcher: SpawnHelperPool, work: String,
        progress: (String) -> Void
    ) throws(BenchError) -> HugePhotoResults {
        func folder(_ tool: CommandTool, _ photo: BenchPhoto) -> String {
            "\(work)/huge/\(tool.name.replacingOccurrences(of: " ", with: ""))/\(photo.stem)"
        }
        for tool in tools {
            for photo in photos {
                let path = folder(tool, photo)
                do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                    throw .cannotWrite(path: path, reason: error.localizedDescription)
                }
            }
        }
        let processes = try SubprocessRun.timePhotos(
            photos, tools: tools, runs: runs, launcher: launcher, folder: folder,
            progress: { progress("200 MP, \($0)") })
        return HugePhotoResults(photos: photos, processes: processes)
    }

    /// One row per photo and tool: median wall and CPU time, and the largest peak RSS of the runs.
    static func rows(_ results: HugePhotoResults, toolNames: [String]) -> [HugePhotoRow] {
        results.photos.flatMap { photo in
            toolNames.compactMap { name -> HugePhotoRow? in
                guard let runs = results.processes[name]?[photo.path], !runs.isEmpty else { return nil }
                return HugePhotoRow(
                    tool: name, photo: photo, wallMS: runs.map(\.wallMS).median ?? .nan,
                    cpuMS: runs.map(\.cpuMS).median ?? .nan, peakRSSMB: runs.map(\.peakRSSMB).max() ?? .nan)
            }
        }
    }
}

/// One tool on one 200 MP photo.
struct HugePhotoRow: Sendable, Codable {
    var tool: String
    var photo: BenchPhoto
    var wallMS: Double
    var cpuMS: Double
    var peakRSSMB: Double
}
