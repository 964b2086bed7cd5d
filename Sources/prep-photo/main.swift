import CommandLineParser
import CommandSupport
import Dispatch
import ImagePrep

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The inputs of the command line and of the file lists, expanded (with `--shard`, this shard's
/// only); exits when a list cannot be read.
func findInputs(
    _ options: CommandLineOptions, outputFolder: FileIdentity?, isStopRequested: @escaping () -> Bool
) -> [FoundInput] {
    var discovery = InputDiscovery(
        isRecursive: options.isRecursive, base: options.base, outputFolder: outputFolder,
        isStopRequested: isStopRequested)
    var claims = options.shard.map {
        ShardClaims(
            shard: $0, writesDisplay: options.configuration.displayEdge != nil,
            writesThumbnail: options.configuration.thumbnailEdge != nil)
    }
    var position = 0
    func add(_ path: BytePath) {
        defer { position += 1 }
        guard claims != nil else { return discovery.add(path) }
        claims!.add(path, at: position, to: &discovery, outputFolder: options.outputFolder)
    }
    func addFailure(_ shown: BytePath, code: String, message: String) {
        defer { position += 1 }
        guard options.shard?.includes(position: position) ?? true else { return }
        discovery.addFailure(shown, code: code, message: message)
    }
    for input in options.inputs { add(input) }
    for list in options.fileLists {
        do {
            try FileList.read(list, separator: options.listSeparator) { entry in
                switch entry {
                case .path(let path):
                    add(path)
                case .tooLong(let prefix):
                    addFailure(
                        BytePath(bytes: prefix + Array("...".utf8)), code: "name_too_long",
                        message:
                            "A line of the file list '\(list)' is longer than any path (\(FileList.longestPath) bytes); it starts '\(BytePath(bytes: prefix))'."
                    )
                case .containsNUL(let shown):
                    addFailure(
                        shown, code: "unreadable",
                        message:
                            "A line of the file list '\(list)' holds a NUL byte, which no path has; a list from find -print0 is read with -0."
                    )
                }
            }
        } catch {
            Terminal.writeError("prep-photo: error: could not read the file list '\(list)': \(error.reason).\n")
            exit(1)
        }
    }
    return discovery.found
}

// Photo after photo, libde265 frees and allocates the same blocks: keep them (Platform).
Platform.keepFreedMemoryForReuse()

let action: CommandLineOptions.Action
do {
    action = try CommandLineOptions.parse(CommandLineArgument.processArguments)
} catch {
    Terminal.writeError(error.report(usage: CommandLineOptions.usage, command: "prep-photo"))
    exit(UsageError.exitStatus)
}

switch action {
case .showHelp:
    Terminal.writeOutput(CommandLineOptions.help)
case .showVersion:
    Terminal.writeOutput(CommandLineOptions.version + "\n")
case .run(let options):
    Terminal.keepLibrariesQuiet()
    let writer = OutputWriter()
    let batch = RunningBatch()
    let clearsLine = Terminal.isErrorATerminal ? "\r\u{1B}[K" : ""
    /// Ends the run now: no copy is placed after this, every placed photo has its JSON line, and
    /// no temporary file is left.
    let stopAtOnce: @Sendable (Int32, String) -> Never = { signal, why in
        writer.removeTemporariesAndExit {
            batch.runner.withLock { $0 }?.reportAllAtOnce(stoppedBy: signal)
            Terminal.writeError(clearsLine + "prep-photo: \(why); the photos in flight were not written.\n")
            StopSignals.endProcess(by: signal)
        }
    }
    // Before any other thread starts, so that every thread has the signals blocked.
    let signals = StopSignals(StopSignals.prepPhotoSignals) { signal in
        stopAtOnce(signal, "stopped at once by a second \(StopSignals.name(of: signal))")
    }
    signals.onFirstSignal { signal in
        // A photo still in flight this long after the request is one that a decoder will not
        // give back soon (libheif cannot be interrupted): the run stops without it.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(StopSignals.gracePeriodMilliseconds)) {
            guard !batch.isEnding.withLock({ $0 }) else { return }
            stopAtOnce(
                signal,
                "\(StopSignals.name(of: signal)): a photo in flight was still being prepared "
                    + "\(StopSignals.gracePeriodDescription) later, so the run stopped without it")
        }
        guard !options.isQuiet else { return }
        Terminal.writeError(
            clearsLine
                + "prep-photo: \(StopSignals.name(of: signal)): finishing the photos in flight, then stopping; "
                + "once more stops at once.\n")
    }

    var folderProblem: String?
    if let error = FileSystem.makeFolders(options.outputFolder) {
        folderProblem = "could not create the output folder '\(options.outputFolder)': \(error.reason)."
        Terminal.writeError("prep-photo: error: \(folderProblem!)\n")
    } else {
        OutputMark.mark(options.outputFolder)
    }
    var outputIdentity: FileIdentity?
    if case .success(let status) = FileSystem.status(of: options.outputFolder, followingLinks: true) {
        outputIdentity = status.identity
    }

    var plan = BatchPlan.make(
        findInputs(options, outputFolder: outputIdentity, isStopRequested: { signals.stopSignal != nil }),
        outputFolder: options.outputFolder,
        writesDisplay: options.configuration.displayEdge != nil,
        writesThumbnail: options.configuration.thumbnailEdge != nil)
    if let folderProblem {
        for index in plan.photos.indices where plan.photos[index].verdict == nil {
            plan.photos[index].verdict = .failed(
                code: "write_failed", message: "'\(plan.photos[index].input)' was not prepared: \(folderProblem)")
        }
    }

    var settings = BatchRunner.Settings()
    settings.jobs = options.jobs
    settings.emitsJSON = options.emitsJSON
    settings.showsProgress = Terminal.isErrorATerminal && !options.isQuiet
    settings.isQuiet = options.isQuiet
    settings.isVerbose = options.isVerbose
    settings.existingCopies = options.existingCopies
    settings.writesDisplay = options.configuration.displayEdge != nil
    settings.writesThumbnail = options.configuration.thumbnailEdge != nil
    // Fewer photos at once than cores (one photo, or --jobs 1): let each photo use two threads.
    var configuration = options.configuration
    configuration.splitsWorkAcrossCores =
        min(options.jobs, plan.photos.count { $0.verdict == nil }) < ProcessInfo.processInfo.activeProcessorCount
    let preparer: PhotoPreparer
    do {
        preparer = try PhotoPreparer(configuration: configuration)
    } catch {
        // The options were checked as they were parsed; this is the library's own word on them.
        Terminal.writeError("prep-photo: error: \(error)\n")
        exit(2)
    }
    let runner = BatchRunner(plan: plan, preparer: preparer, settings: settings, writer: writer, signals: signals)
    batch.runner.withLock { $0 = runner }
    let (tally, elapsed) = runner.run()
    batch.isEnding.withLock { $0 = true }

    let stopSignal = signals.stopSignal
    if !options.isQuiet || stopSignal != nil {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let lines = Summary.lines(tally, seconds: seconds, outputFolder: options.outputFolder, stopSignal: stopSignal)
        Terminal.writeError((options.isQuiet ? [lines.last!] : lines).map { $0 + "\n" }.joined())
    }
    if let stopSignal { StopSignals.endProcess(by: stopSignal) }
    exit(tally.failed > 0 ? 1 : 0)
}

/// The run in progress, for a stop that comes from the queue the signals are read on.
final class RunningBatch: Sendable {
    let runner = Locked<BatchRunner?>(nil)
    /// Set once the batch has finished and only the summary is left to print.
    let isEnding = Locked<Bool>(false)
}
