import Foundation

/// The rows for formats other than JPEG and HEIC (`--format FILE`: a phone screenshot PNG, a WebP
/// photo, an animated GIF, TIFFs in strips and tiles, a DNG, a JPEG XL, a JPEG 2000; see
/// `Benchmarks/format-bench.sh`): for each file alone, prep-photo's whole job beside vipsthumbnail's
/// 2048 copy one photo per process and in a batch of `batchCopies` copies of it, and beside the
/// format's own decoder alone (`DecodeFloor`, one process per photo) where there is one.
struct FormatRow: Codable, Sendable {
    var path: String
    /// Per tool name: one photo per process.
    var processes: [String: [ProcessMeasurement]] = [:]
    /// Per tool name: each timed batch of the copies in one process.
    var batches: [String: [BatchMeasurement]] = [:]
    /// The floor's tool name, when the format has one here.
    var floorTool: String?
    /// The tools that refused the file, left out of its rows.
    var leftOut: [String] = []
}

enum FormatRun {
    /// Copies of the file in each batch.
    static let batchCopies = 24

    /// The formats `DecodeFloor` decodes.
    static func hasFloor(_ path: String) -> Bool { DecodeFloor.Floor(path: path) != nil }

    static func measure(
        _ paths: [String], tools: [CommandTool], floor: CommandTool, runs: Int, batchRuns: Int,
        launcher: SpawnHelperPool, work: String, progress: (String) -> Void
    ) throws(BenchError) -> [FormatRow] {
        func folder(_ path: String) throws(BenchError) -> String {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw .cannotWrite(path: path, reason: error.localizedDescription)
            }
            return path
        }
        var rows: [FormatRow] = []
        for (index, path) in paths.enumerated() {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .unreadable(path: path, reason: "it cannot be read")
            }
            let photo = BenchPhoto(path: path, width: 0, height: 0, byteCount: data.count)
            var row = FormatRow(path: path)
            // A tool that refuses the file (prep-photo before the PNG branch, on a PNG) is left out.
            let probe = try folder("\(work)/formats/\(index)/probe")
            let single = (tools + (hasFloor(path) ? [floor] : [])).filter { tool in
                guard tool.kind != .prepPhoto(isFast: true) else { return false }
                do throws(BenchError) {
                    _ = try launcher.run(tool.arguments(for: photo, into: probe), stderrPath: "\(probe)/stderr.txt")
                    return true
                } catch {
                    row.leftOut.append(tool.name)
                    return false
                }
            }
            row.floorTool = hasFloor(path) ? floor.name : nil
            var failure: BenchError?
            row.processes = try SubprocessRun.timePhotos(
                [photo], tools: single, runs: runs, launcher: launcher,
                folder: { tool, _ in
                    let path = "\(work)/formats/\(index)/single/\(tool.name.replacingOccurrences(of: " ", with: ""))"
                    do throws(BenchError) { return try folder(path) } catch {
                        failure = error
                        return path
                    }
                }, progress: { progress("\(photo.stem): \($0)") }
            ).mapValues { $0[path] ?? [] }
            if let failure { throw failure }
            // The batch: copies of the file under names of its extension, in one folder.
            let copiesFolder = try folder("\(work)/formats/\(index)/copies")
            let copies = (0..<batchCopies).map { copy in
                let name = "\(copiesFolder)/copy-\(copy).\(URL(fileURLWithPath: path).pathExtension)"
                if !FileManager.default.createFile(atPath: name, contents: data) {
                    failure = .cannotWrite(path: name, reason: "it cannot be created")
                }
                return BenchPhoto(path: name, width: 0, height: 0, byteCount: data.count)
            }
            if let failure { throw failure }
            for _ in 1...batchRuns {
                for tool in single where tool.kind != .decodeFloor {
                    row.batches[tool.name, default: []].append(
                        try SubprocessRun.timeBatch(
                            copies, tool: tool, launcher: launcher,
                            into: try folder(
                                "\(work)/formats/\(index)/batch/\(tool.name.replacingOccurrences(of: " ", with: ""))")))
                }
            }
            progress("\(photo.stem): batches done")
            rows.append(row)
        }
        return rows
    }

    /// The table: per file and tool, one photo's median wall, CPU and peak RSS, and the batch
    /// rate; then the ratios the goals speak of.
    static func markdown(_ rows: [FormatRow], ours: String, vips: String) -> String {
        var text = "\n## Other formats (one file each; batches of \(batchCopies) copies)\n\n"
        text += "| file | tool | one photo wall (ms) | CPU (ms) | peak RSS (MB) | batch (photos/s) |\n"
        text += "|---|---|---|---|---|---|\n"
        func median(_ values: [Double]) -> Double? { values.median }
        for row in rows {
            let name = URL(fileURLWithPath: row.path).lastPathComponent
            for (tool, runs) in row.processes.sorted(by: { $0.key < $1.key }) {
                let batch = row.batches[tool].flatMap { median($0.map(\.wallMS)) }.map {
                    Double(batchCopies) / ($0 / 1e3)
                }
                text += "| \(name) | \(tool) | \(format(median(runs.map(\.wallMS)), 1)) | "
                text += "\(format(median(runs.map(\.cpuMS)), 1)) | \(format(runs.map(\.peakRSSMB).max(), 1)) | "
                text += "\(format(batch, 1)) |\n"
            }
        }
        for row in rows where !row.leftOut.isEmpty {
            text += "\n\(URL(fileURLWithPath: row.path).lastPathComponent): left out, since it refused the file: "
            text += row.leftOut.joined(separator: ", ") + "\n"
        }
        text += "\n| file | one photo wall ÷ vips | one photo CPU ÷ vips | batch rate ÷ vips | CPU ÷ decoder alone |"
        text += " goals met |\n|---|---|---|---|---|---|\n"
        var floors: Set<DecodeFloor.Floor> = []
        for row in rows {
            let name = URL(fileURLWithPath: row.path).lastPathComponent
            func wall(_ tool: String) -> Double? { row.processes[tool].flatMap { median($0.map(\.wallMS)) } }
            func cpu(_ tool: String) -> Double? { row.processes[tool].flatMap { median($0.map(\.cpuMS)) } }
            func batch(_ tool: String) -> Double? { row.batches[tool].flatMap { median($0.map(\.wallMS)) } }
            let single = ratio(wall(ours), wall(vips))
            let singleCPU = ratio(cpu(ours), cpu(vips))
            let batches = ratio(batch(vips), batch(ours))
            let floor = row.floorTool.flatMap { ratio(cpu(ours), cpu($0)) }
            if let kind = DecodeFloor.Floor(path: row.path) { floors.insert(kind) }
            // The goals: faster than vips one photo and in a batch, within 1.5x of the decoder alone.
            let goals = [
                single.map { $0 < 1 ? "one photo" : "" }, batches.map { $0 > 1 ? "batch" : "" },
                floor.map { $0 <= 1.5 ? "floor" : "" },
            ].compactMap { $0 }.filter { !$0.isEmpty }
            text += "| \(name) | \(format(single, 2)) | \(format(singleCPU, 2)) | \(format(batches, 2)) | "
            text += "\(format(floor, 2)) | \(goals.isEmpty ? "none" : goals.joined(separator: ", ")) |\n"
        }
        text += "\nBelow 1 is faster than vips for the first two ratios; above 1 for the batch rate. "
        text += "The decoder alone, by format:\n"
        for kind in DecodeFloor.Floor.allCases where floors.contains(kind) {
            text += "- \(kind.rawValue): \(kind.description)\n"
        }
        return text
    }

    private static func ratio(_ a: Double?, _ b: Double?) -> Double? {
        guard let a, let b, b > 0 else { return nil }
        return a / b
    }

    private static func format(_ value: Double?, _ digits: Int) -> String {
        value.map { String(format: "%.\(digits)f", $0) } ?? "–"
    }
}
