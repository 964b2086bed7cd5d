import CommandLineParser
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--network unmetered|metered|constrained|metered,constrained`: the network the machine is on,
/// which nothing on Linux tells apart by itself, for `list`, `drain` and `send-now`.
enum NetworkOption {
    static let option = Option(
        "network", value: .required(placeholder: "kind"),
        help:
            "The network this machine is on: unmetered (Wi-Fi or a wire), metered (cellular, a hotspot), constrained (low data mode), or metered,constrained. Photo captures wait for an unmetered one; other operations go on any. (default: unmetered)"
    )

    /// The network `--network` names; unmetered when not given.
    static func read(_ parsed: ParsedArguments) throws(UsageError) -> NetworkPath {
        guard let text = try parsed.string(option) else { return .unmetered }
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard words == ["unmetered"] || (!words.isEmpty && Set(words).isSubset(of: ["metered", "constrained"])) else {
            throw parsed.invalid(option, "it must be unmetered, metered, constrained, or metered,constrained")
        }
        return NetworkPath(isExpensive: words.contains("metered"), isConstrained: words.contains("constrained"))
    }
}
