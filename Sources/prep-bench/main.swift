import CommandLineParser
import Foundation
import ImagePrep

// prep-bench: the whole job against vipsthumbnail, in one run. See `BenchOptions.help`.

func say(_ message: String) { FileHandle.standardError.write(Data("prep-bench: \(message)\n".utf8)) }

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(
        separator: " ")
}

if CommandLine.arguments.dropFirst().first == SpawnHelper.argument { SpawnHelper.serve() }

let options: BenchOptions
do {
    switch try BenchOptions.parse(CommandLineArgument.processArguments) {
    case .showHelp:
        print(BenchOptions.help, terminator: "")
        exit(0)
    case .run(let parsed): options = parsed
    case .decodeFloor(let file): exit(DecodeFloor.run(file))
    }
} catch {
    FileHandle.standardError.write(Data(error.report(usage: BenchOptions.usage, command: "prep-bench").utf8))
    exit(UsageError.exitStatus)
}

/// Every measurement; throws the first failure of any tool.
func measure(_ options: BenchOptions, launcher: SpawnHelperPool) throws(BenchError) -> BenchResults {
    let photos = try PhotoSet.load(folder: options.photoFolder, limit: options.limit, extras: options.extraPhotos)
    guard FileManager.default.isExecutableFile(atPath: options.prepPhotoPath) else {
        throw .toolFailed(
            command: options.prepPhotoPath, detail: "there is no such executable; build it or pass --prep-photo.")
    }
    let work = options.workFolder
    func folder(_ parts: String...) throws(BenchError) -> String {
        try makeFolder(([work] + parts).joined(separator: "/"))
    }
    func makeFolder(_ path: String) throws(BenchError) -> String {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
        return path
    }
    /// Where one tool's runs on one photo write, kept for the quality pass ("prep-photo --fast"
    /// becomes "prep-photo--fast").
    func singleFolder(_ tool: CommandTool, _ photo: BenchPhoto) -> String {
        "\(work)/single/\(tool.name.replacingOccurrences(of: " ", with: ""))/\(photo.stem)"
    }

    let modes: [PreparationMode] = options.includesFastMode ? [.exact, .fast] : [.exact]
    var tools: [CommandTool] = []
    if let vips = options.vipsthumbnailPath {
        tools.append(CommandTool(kind: .vipsthumbnail, executable: vips, jobs: options.jobs))
    }
    for mode in modes {
        tools.append(
            CommandTool(kind: .prepPhoto(isFast: mode == .fast), executable: options.prepPhotoPath, jobs: options.jobs))
    }
    if options.vipsthumbnailPath == nil {
        say("vipsthumbnail not found or --vips none: no ratios, and --check will fail")
    }
    for tool in tools {
        for photo in photos.all { _ = try makeFolder(singleFolder(tool, photo)) }
    }

    var results = BenchResults(
        date: ISO8601DateFormatter().string(from: Date()), host: ProcessInfo.processInfo.hostName,
        cores: ProcessInfo.processInfo.activeProcessorCount, loadAverageAtStart: loadAverage(), loadAverageAtEnd: "",
        runs: options.runs, batchRuns: options.batchRuns, jobs: options.jobs, toolNames: tools.map(\.name),
        commands: Dictionary(
            uniqueKeysWithValues: tools.map { ($0.name, $0.arguments(for: photos.all[0], into: "OUT")) }),
        harnessRSSFloorMB: try launcher.run(["/bin/true"], stderrPath: "/dev/null").peakRSSMB,
        regularPhotos: photos.regular, largePhotos: photos.large)
    say(
        "\(photos.regular.count) photos + \(photos.large.count) large, outputs in \(work), load \(results.loadAverageAtStart)"
    )

    // 1. The library in this process, one photo at a time: the whole job as an app waiting for
    //    one photo runs it (on two threads when there are cores to spare), then on one thread for
    //    the stages, which then add up to the whole.
    let coresToSpare = ProcessInfo.processInfo.activeProcessorCount > 1
    for mode in modes {
        results.inProcess[mode] = try InProcessRun.timePhotos(
            photos.all, preparer: mode.preparer(splitsWork: coresToSpare),
            runs: options.runs, outputFolder: try folder("in-process", mode.rawValue))
        results.inProcessOneThread[mode] = try InProcessRun.timePhotos(
            photos.all, preparer: mode.preparer(splitsWork: false),
            runs: options.runs, outputFolder: try folder("in-process", mode.rawValue))
        say("in-process \(mode.rawValue): done")
    }

    // 2. One photo per process, the tools interleaved.
    results.processes = try SubprocessRun.timePhotos(
        photos.all, tools: tools, runs: options.runs, launcher: launcher,
        folder: singleFolder, progress: say)

    // 3. Batches of the regular photos, every form in each round.
    let batchPhotos = photos.regular.isEmpty ? photos.large : photos.regular
    for round in 1...options.batchRuns {
        for tool in tools {
            let measurement = try SubprocessRun.timeBatch(
                batchPhotos, tool: tool, launcher: launcher,
                into: try folder("batch", tool.name.replacingOccurrences(of: " ", with: "")))
            results.batches[
                tool.kind == .vipsthumbnail ? BatchName.vipsOneProcess : BatchName.command(tool), default: []
            ]
            .append(measurement)
            if tool.kind == .vipsthumbnail {
                results.batches[BatchName.vipsProcessPerPhoto, default: []].append(
                    try SubprocessRun.timeProcessPerPhotoBatch(
                        batchPhotos, tool: tool, launcher: launcher, workers: options.jobs,
                        into: try folder("batch", "vipsthumbnail-per-photo")))
            }
        }
        for mode in modes {
            results.batches[BatchName.inProcess(mode), default: []].append(
                try InProcessRun.timeBatch(
                    batchPhotos,
                    preparer: mode.preparer(splitsWork: options.jobs < ProcessInfo.processInfo.activeProcessorCount),
                    workers: options.jobs,
                    outputFolder: try folder("batch", "in-process-\(mode.rawValue)")))
        }
        say("batches: round \(round)/\(options.batchRuns)")
    }

    // 4. The same photos as HEIC, prep-photo beside vipsthumbnail.
    if let heicFolder = options.heicFolder {
        let heicPhotos = try HEICRun.loadPhotos(folder: heicFolder)
        var heicTools = tools.filter { $0.kind != .prepPhoto(isFast: true) }
        // The HEVC floor: libde265 alone on the tiles of each photo.
        if let dec265 = options.dec265Path, HEICRun.haveStreams(heicPhotos) {
            heicTools.append(CommandTool(kind: .hevcFloor, executable: dec265, jobs: options.jobs))
        } else {
            say(
                "no HEVC floor: no dec265 (--dec265), or a HEIC without its .hevc (Benchmarks/make-heic.sh writes them)"
            )
        }
        results.heic = try HEICRun.measure(
            heicPhotos, tools: heicTools, runs: options.runs, batchRuns: options.batchRuns, launcher: launcher,
            work: work, progress: say)
    }

    // 5. The photos of about 200 MP, each alone, with peak memory.
    if !options.hugePhotos.isEmpty {
        results.huge = try HugePhotoRun.measure(
            try HugePhotoRun.loadPhotos(options.hugePhotos),
            tools: tools.filter { $0.kind != .prepPhoto(isFast: true) },
            runs: options.runs, launcher: launcher, work: work, progress: say)
    }
    if !options.formatFiles.isEmpty { try measureFormats(options, launcher: launcher) }
    results.loadAverageAtEnd = loadAverage()

    // 6. prep-photo's peak memory at every edge, on a photo at the pixel limit.
    results.edgeMemory = try EdgeMemoryRun.measure(
        prepPhoto: options.prepPhotoPath, launcher: launcher, folder: try folder("edges"))
    say("memory at every edge: done")

    // 7. Bytes, sizes and SSIM of the last single-photo outputs.
    var outputs: [String: [String: String]] = [:]
    for photo in photos.all {
        for tool in tools {
            outputs[photo.path, default: [:]][tool.name] = tool.uploadPath(for: photo, in: singleFolder(tool, photo))
        }
    }
    say(options.skipsQuality ? "reading output sizes" : "SSIM against the float Lanczos3 reference")
    results.quality = try QualityRun.measure(
        photos.all, outputs: outputs, workers: options.jobs, computesSSIM: !options.skipsQuality)
    return results
}

/// The `--format` rows, printed as soon as they are measured.
func measureFormats(_ options: BenchOptions, launcher: SpawnHelperPool) throws(BenchError) {
    var tools = [CommandTool(kind: .prepPhoto(isFast: false), executable: options.prepPhotoPath, jobs: options.jobs)]
    if let vips = options.vipsthumbnailPath {
        tools.append(CommandTool(kind: .vipsthumbnail, executable: vips, jobs: options.jobs))
    }
    let floor = CommandTool(kind: .decodeFloor, executable: BenchOptions.executablePath(), jobs: options.jobs)
    let rows = try FormatRun.measure(
        options.formatFiles, tools: tools, floor: floor, runs: options.runs, batchRuns: options.batchRuns,
        launcher: launcher,
        work: options.workFolder, progress: say)
    print(FormatRun.markdown(rows, ours: tools[0].name, vips: "vipsthumbnail"), terminator: "")
}

/// Prints the tables, writes the JSON and judges the goals.
///
/// - Returns: the exit status: 1 when `--check` was given and a goal of the default mode missed.
func conclude(_ results: BenchResults, options: BenchOptions) throws(BenchError) -> Int32 {
    let thresholdsPath = options.thresholdsPath ?? BenchOptions.defaultThresholdsPath()
    let thresholds =
        FileManager.default.fileExists(atPath: thresholdsPath) || options.thresholdsPath != nil
        ? try Thresholds.load(thresholdsPath) : nil
    let tools = results.toolNames.compactMap {
        CommandTool(name: $0, executable: results.commands[$0]?.first ?? $0, jobs: results.jobs)
    }
    let summary = Summary(results, tools: tools)
    let goals: [(tool: String, verdicts: [Thresholds.Verdict])] =
        thresholds.map { thresholds in
            tools.filter { $0.kind != .vipsthumbnail }.map {
                (tool: $0.name, verdicts: thresholds.verdicts(for: $0.name, in: summary))
            }
        } ?? []
    print(
        Report.markdown(
            results, summary: summary, goals: goals, sizeTolerance: thresholds?.maximumSizeDeviation ?? 0.03),
        terminator: "")

    if let jsonPath = options.jsonPath {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        struct Output: Encodable {
            let results: BenchResults
            let summary: Summary
        }
        do {
            try encoder.encode(Output(results: results, summary: summary)).write(to: URL(fileURLWithPath: jsonPath))
        } catch {
            throw .cannotWrite(path: jsonPath, reason: error.localizedDescription)
        }
    }

    // Only the default mode is held to the goals; the speed mode's verdicts are for reading.
    guard options.thresholdsPath != nil else { return 0 }
    let missed = goals.first { $0.tool == CommandTool.checkedName }?.verdicts.filter { !$0.isMet } ?? []
    for verdict in missed { say("missed goal: \(verdict.goal): \(verdict.measured)") }
    return missed.isEmpty ? 0 : 1
}

do {
    // Started first, while this process is still small: see `SpawnHelper`.
    // If anything throws, exiting closes the helpers' pipes and they end on their own.
    let launcher = try SpawnHelperPool(count: options.jobs)
    let results: BenchResults
    if options.photoFolder.isEmpty, options.reportPath == nil {
        // Only the --format rows.
        try measureFormats(options, launcher: launcher)
        launcher.stop()
        exit(0)
    }
    if let reportPath = options.reportPath {
        results = try BenchResults.load(reportPath)
    } else {
        results = try measure(options, launcher: launcher)
    }
    launcher.stop()
    let status = try conclude(results, options: options)
    exit(status)
} catch {
    say("error: \(error)")
    exit(1)
}
