import CommandLineParser

/// The options of `outbox` and of each of its commands, what `outbox --help` and
/// `outbox <command> --help` say, and the usage line after a usage error.
enum CommandHelp {
    static let commandNames = ["add", "list", "drain", "send-now", "discard"]

    static let usage = "outbox --store <folder> <command> [options]"

    static let store = Option(
        "store", value: .required(placeholder: "folder"),
        help:
            "The outbox: outbox.sqlite and media/ in this folder, created when absent. Several outbox commands may use it at once."
    )
    static let help = Option("help", short: "h", help: "Show this help.")

    /// What `outbox` takes before the command.
    static let toolOptions = [
        store,
        Option("version", help: "Show the version."),
        Option("help", short: "h", help: "Show this help; 'outbox <command> --help' shows a command's."),
    ]

    /// What every command takes besides its own options.
    static let storeAndHelp = [store, help]

    /// The usage line of one command, or of the tool when the error is not about one command.
    static func usage(for command: String?) -> String {
        switch command {
        case "add": "outbox --store <folder> add <photo> ... [--kind <kind>] [--note <text>]"
        case "list": "outbox --store <folder> list [--json]"
        case "drain": "outbox --store <folder> drain --engine <url> [--watch <seconds>]"
        case "send-now": "outbox --store <folder> send-now <id> --engine <url>"
        case "discard": "outbox --store <folder> discard <id>"
        default: usage
        }
    }

    /// A command's own options; nil for a name that is no command.
    static func options(for command: String) -> [Option]? {
        switch command {
        case "add": addOptions
        case "list": [Option("json", help: listJSONHelp)]
        case "drain": drainOptions
        case "send-now": drainOptions.filter { $0.name != "watch" }
        case "discard": []
        default: nil
        }
    }

    static func text(for command: String) -> String {
        switch command {
        case "add": add
        case "list": list
        case "drain": drain
        case "send-now": sendNow
        default: discard
        }
    }

    static let overview = HelpText(
        overview: """
            Keep captures on this device until the engine has them: queue prepared photos, send them exactly \
            once, and see what is waiting.
            """,
        usage: usage,
        sections: [
            .entries(
                title: "COMMANDS",
                [
                    .init("add <photo> ...", "Prepare each photo and queue it as a capture; print its id."),
                    .init("list", "Show what the outbox holds."),
                    .init("drain --engine <url>", "Send the queue to the engine, and retire what it took."),
                    .init("send-now <id>", "Send one capture now, even a parked one, then the rest."),
                    .init("discard <id>", "Delete a capture from the outbox without sending it."),
                ]),
            .options(title: "OPTIONS", toolOptions),
            .text(
                title: "EXIT STATUS",
                """
                0 on success; 1 when something failed, or when drain left captures in the queue;
                2 for a usage error.
                """),
            .text(
                title: "EXAMPLES",
                """
                outbox --store ~/outbox add --kind plate IMG_1025.jpg IMG_1026.jpg
                outbox --store ~/outbox drain --engine http://127.0.0.1:8080
                outbox --store ~/outbox list --json
                """),
        ]
    ).rendered

    static let addOptions = [
        Option(
            "kind", value: .required(placeholder: "kind", takesAnyWord: true),
            help: "What was captured, in the app's own words. (default: photo)"),
        Option(
            "note", value: .required(placeholder: "text", takesAnyWord: true),
            help: "The note of every capture; surrounding whitespace is trimmed."),
        Option(
            "max-edge", value: .required(placeholder: "pixels"),
            help: "Longest edge of the upload copy. (default: 2048)"),
        Option(
            "quality", value: .required(placeholder: "1-100"), help: "JPEG quality of the upload copy. (default: 85)"),
    ]

    static let add = HelpText(
        overview: "Prepare photos and queue each one as a capture.",
        usage: usage(for: "add"),
        sections: [
            .entries(
                title: "ARGUMENTS",
                [
                    .init(
                        "<photo>",
                        "JPEG files; each becomes one capture with one upload copy (long edge at most --max-edge, the original EXIF carried)."
                    )
                ]),
            .options(title: "OPTIONS", addOptions + [help]),
            .text(
                title: "OUTPUT",
                """
                One id per line on stdout, in the order of the photos, each printed once its capture
                is on disk (flushed: it survives a crash or a power cut). The id comes from all the
                capture holds: the kind, the note, the upload copy's bytes and the capture time (the
                photo's own when it records a UTC offset, else the file's modification time). So adding
                the same file again with the same kind and note prints the same id and queues nothing
                new. Failures name the photo on stderr.

                Photos are queued one at a time, in order. Killed part-way, add leaves every photo
                whose id it printed queued, the photo it was working on queued whole or not at all,
                and the photos after it untouched; running the same add again finishes the job
                without queuing anything twice.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when every photo was queued, 1 when some failed, 2 for a usage error.
                """),
        ]
    ).rendered

    static let listJSONHelp = """
        One JSON object per capture on stdout: {"id", "state", "attempts", "lastError", "nextAttemptAt", \
        "waitsForSendNow"}, then one last line {"unreadable": N}, the records this version cannot read (kept on \
        the device, never sent).
        """

    static let list = HelpText(
        overview: "Show what the outbox holds, in capture order.",
        usage: usage(for: "list"),
        sections: [
            .options(title: "OPTIONS", options(for: "list")! + [help]),
            .entries(
                title: "STATES",
                [
                    .init("QUEUED", "Waiting to be sent (after a failure, until its backoff ends)."),
                    .init("SYNCING", "Being sent by a drain right now."),
                    .init("SYNCED", "The engine has it; the next drain retires it."),
                    .init(
                        "FAILED_NEEDS_ATTENTION",
                        "Parked: the engine refused it, or its photo file is gone; see lastError, then send-now or discard."
                    ),
                ]),
            .text(
                title: nil,
                """
                A store this user may read but not change (another user's, a read-only disk) is read
                as it is, without changing anything, and a note on stderr says so.
                """),
        ]
    ).rendered

    static let drainOptions = [
        Option(
            "engine", value: .required(placeholder: "url"),
            help: "The engine's base URL, for example http://127.0.0.1:8080."),
        Option(
            "watch", value: .required(placeholder: "seconds"),
            help:
                "Keep draining: a pass every <seconds>, and sooner when a failed send's backoff ends, until Ctrl-C or SIGTERM."
        ),
        Option(
            "timeout", value: .required(placeholder: "seconds"),
            help: "Fail a request after this long with no byte moving. (default: 30)"),
        Option(
            "retry-delay", value: .required(placeholder: "seconds"),
            help: "The first wait after a failure; each one after it doubles, up to 15 minutes. (default: 2)"),
        Option(
            "retry-limit", value: .required(placeholder: "count"),
            help: "Automatic retries before a capture waits for send-now. (default: 8)"),
    ]

    static let drain = HelpText(
        overview: "Send the queue to the engine in capture order, and retire what it took.",
        usage: usage(for: "drain"),
        sections: [
            .options(title: "OPTIONS", drainOptions + [help]),
            .text(
                title: nil,
                """
                The first pass is the one you asked for, like pull to refresh: it tries every queued
                capture now, whatever its backoff or retry count. The later passes of --watch are
                automatic: they keep to the backoff and the retry limit. A pass stops at the first
                failure that may pass (no connection, a timeout, HTTP 409, 429 or 5xx, or a success
                that is not the engine's own answer, such as a Wi-Fi login page) and honours the
                engine's Retry-After, up to an hour; a capture the engine refuses for good (HTTP 422
                and other 4xx), or whose photo file is missing, is parked and the pass goes on.

                Ctrl-C or SIGTERM stops the drain at once: a capture being sent goes back to the
                queue unsent, its attempt not counted. A second one exits without waiting.
                """),
            .text(
                title: "OUTPUT",
                """
                The ids the engine took, one per line on stdout, as each pass retires them; what is
                left and the parked captures with their reasons on stderr; on a terminal, the upload's
                progress on stderr.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when nothing is left queued (parked captures wait for you, and do not count),
                1 otherwise, 2 for a usage error.
                """),
        ]
    ).rendered

    static let sendNow = HelpText(
        overview: """
            Send one capture now, ahead of the queue and of its backoff, even a parked one or one whose \
            automatic retries ran out; then drain the rest as usual.
            """,
        usage: usage(for: "send-now"),
        sections: [
            .entries(title: "ARGUMENTS", [.init("<id>", "The capture's id, as add printed it and list shows it.")]),
            .options(title: "OPTIONS", options(for: "send-now")! + [help]),
            .text(title: nil, "Ctrl-C or SIGTERM stops it as it stops drain."),
            .text(
                title: "EXIT STATUS",
                """
                0 when the engine took the capture, 1 otherwise, 2 for a usage error.
                """),
        ]
    ).rendered

    static let discard = HelpText(
        overview: """
            Delete a capture from the outbox, its photos included, without sending it. What the engine \
            already received stays there.
            """,
        usage: usage(for: "discard"),
        sections: [
            .entries(title: "ARGUMENTS", [.init("<id>", "The capture's id, as add printed it and list shows it.")]),
            .options(title: "OPTIONS", [help]),
            .text(
                title: "EXIT STATUS",
                """
                0 when it was deleted, 1 when the outbox holds no such capture, 2 for a usage error.
                """),
        ]
    ).rendered
}
