import CommandLineParser
import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `drain` and `send-now` reach the engine and pace themselves, and how they run: in a task
/// that SIGINT or SIGTERM cancels.
struct DrainSettings {
    let engineURL: URL
    let timeout: Double
    let retryDelay: Double
    let retryLimit: Int
    let network: NetworkPath

    enum Options {
        static let engine = Option(
            "engine", value: .required(placeholder: "url"),
            help: "The engine's base URL, for example http://127.0.0.1:8080.")
        static let timeout = Option(
            "timeout", value: .required(placeholder: "seconds"),
            help: "Fail a request after this long with no byte moving. (default: 30)")
        static let retryDelay = Option(
            "retry-delay", value: .required(placeholder: "seconds"),
            help: "The first wait after a failure; each one after it doubles, up to 15 minutes. (default: 2)")
        static let retryLimit = Option(
            "retry-limit", value: .required(placeholder: "count"),
            help: "Automatic retries before a capture waits for send-now. (default: 8)")
    }

    /// The options of both commands, in the order their help lists them, with `own` (drain's
    /// `--watch`) after `--engine`.
    static func options(_ own: [Option] = []) -> [Option] {
        [Options.engine] + own + [Options.timeout, Options.retryDelay, Options.retryLimit, NetworkOption.option]
    }

    /// Reads the settings; a command's own options (`--watch`) are read before them.
    init(_ parsed: ParsedArguments) throws(UsageError) {
        timeout = try parsed.number(Options.timeout, in: 0.01...86_400, unit: "seconds") ?? 30
        retryDelay = try parsed.number(Options.retryDelay, in: 0...86_400, unit: "seconds") ?? 2
        retryLimit = try parsed.integer(Options.retryLimit, in: 0...1000) ?? 8
        network = try NetworkOption.read(parsed)
        guard let engine = try parsed.string(Options.engine) else {
            throw UsageError("Missing expected option '--engine <url>'")
        }
        // In the one form the transport compares and requests it in: `HTTP://Engine:80` is `http://engine`.
        guard let url = URL(string: engine),
            let normal = HTTPTransport.Configuration(engineURL: url).normalizedEngineURL
        else {
            throw parsed.invalid(Options.engine, "it must be an http:// or https:// URL with a host")
        }
        engineURL = normal
    }

    /// The outbox's configuration for sending: the backoff asked for, and progress on the terminal.
    var configuration: Outbox.Configuration {
        var configuration = StoreConfiguration.relaying
        configuration.backoff = Backoff(initialDelay: retryDelay, automaticRetryLimit: retryLimit)
        configuration.onProgress = { progress in
            Terminal.progress.show(Self.describe(progress), isDone: progress.bytesSent == progress.totalBytes)
        }
        return configuration
    }

    private var transport: HTTPTransport {
        HTTPTransport(
            configuration: HTTPTransport.Configuration(
                engineURL: engineURL, idleTimeout: timeout, requestTimeout: max(300, timeout * 10)))
    }

    /// Opens the store and runs `work` on it with the transport, in a task that SIGINT or SIGTERM
    /// cancels: a send in flight then goes back to the queue as it was (no attempt counted, no
    /// error recorded), and the command says what is left. A second signal exits at once; that
    /// loses nothing either, since the store survives being killed at any point.
    ///
    /// On the main thread, where `main` runs the command, so that the signals are blocked before
    /// anything starts a thread.
    ///
    /// - Returns: What `work` returns: the exit status.
    @MainActor
    func run(
        on store: StoreLocation, _ work: @escaping @Sendable (Outbox, HTTPTransport) async -> Int32
    ) async -> Int32 {
        // Before the store, URLSession and the task start threads: threads inherit the blocked signals.
        let stop = StopSignals([SIGINT, SIGTERM]) { _ in exit(1) }
        let outbox = store.open(configuration)
        let transport = transport
        let task = Task { await work(outbox, transport) }
        stop.onFirstSignal { _ in task.cancel() }
        return await task.value
    }

    /// "Sending 3 of 21, plate-3f2a…: 45% (120 of 266 KB)".
    static func describe(_ progress: UploadProgress) -> String {
        let percent = Int((progress.fractionCompleted * 100).rounded(.down))
        return "Sending \(progress.position), \(progress.id): \(percent)%"
            + " (\(kilobytes(progress.bytesSent)) of \(kilobytes(progress.totalBytes)) KB)"
    }

    private static func kilobytes(_ bytes: Int64) -> Int64 { (bytes + 1023) / 1024 }
}
