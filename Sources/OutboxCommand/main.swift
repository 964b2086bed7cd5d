import CommandLineParser
import CommandSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `outbox add` prepares photo after photo, as prep-photo does: keep freed blocks (Platform).
Platform.keepFreedMemoryForReuse()

switch ToolInvocation.parseOrExit(CommandLineArgument.processArguments) {
case .showHelp(let text):
    Terminal.writeOutput(text)
case .showVersion:
    Terminal.writeOutput(OutboxTool.version + "\n")
case .run(let command):
    exit(await command.run())
}
