import ImagePrep

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

let action: CommandLineOptions.Action
do {
    action = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Terminal.writeError(
        "Error: \(error.message)\n\(CommandLineOptions.usage)\n  See 'prep-photo --help' for more information.\n")
    exit(2)
}

switch action {
case .showHelp:
    Terminal.writeOutput(CommandLineOptions.help + "\n")
case .showVersion:
    Terminal.writeOutput(CommandLineOptions.version + "\n")
case .run(let options):
    let outputFolder = URL(fileURLWithPath: options.outputFolder)
    let folderProblem = OutputWriter.makeFolder(options.outputFolder).map {
        "could not create the output folder '\(options.outputFolder)': \($0)."
    }
    if let folderProblem { Terminal.writeError("prep-photo: error: \(folderProblem)\n") }
    let plan = BatchPlan.make(
        inputs: options.inputs, outputFolder: outputFolder, writesDisplay: options.configuration.displayEdge != nil,
        writesThumbnail: options.configuration.thumbnailEdge != nil,
        folderProblem: folderProblem.map { "Nothing was prepared: \($0)" })
    // Fewer photos at once than cores (one photo, or --jobs 1): let each photo use two threads.
    var configuration = options.configuration
    configuration.splitsWorkAcrossCores =
        min(options.jobs, plan.photos.count) < ProcessInfo.processInfo.activeProcessorCount
    let runner = BatchRunner(
        photos: plan.photos, preparer: PhotoPreparer(configuration: configuration), jobs: options.jobs,
        emitsJSON: options.emitsJSON, showsProgress: Terminal.isErrorATerminal)
    let (failed, elapsed) = runner.run()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let prepared = plan.photos.count - failed
    var summary =
        "Prepared \(prepared) of \(plan.photos.count) photo\(plan.photos.count == 1 ? "" : "s") in "
        + "\(Terminal.format(seconds)) s (\(Terminal.format(seconds > 0 ? Double(prepared) / seconds : 0)) photos/s) into \(options.outputFolder)/"
    if failed > 0 { summary += "; \(failed) failed (see above)" }
    if plan.skippedFileCount > 0 {
        summary += "; skipped \(plan.skippedFileCount) file\(plan.skippedFileCount == 1 ? "" : "s") that are not images"
    }
    Terminal.writeError(summary + ".\n")
    exit(failed > 0 ? 1 : 0)
}
