import CommandLineParser

/// The options of `outbox` and of each of its commands, what `outbox --help` and
/// `outbox <command> --help` say, and the usage line after a usage error.
enum CommandHelp {
    static let commandNames = ["add", "op", "list", "drain", "send-now", "discard", "keygen", "encrypt"]

    static let usage = "outbox --store <folder> <command> [options]"

    static let store = Option(
        "store", value: .required(placeholder: "folder"),
        help:
            "The outbox: outbox.sqlite and media/ in this folder, created when absent. Several outbox commands may use it at once."
    )
    static let keyFile = Option(
        "key-file", value: .required(placeholder: "file"),
        help:
            "The key of an encrypted outbox (made by keygen; default: $OUTBOX_KEY_FILE). A new outbox given a key is encrypted."
    )
    static let help = Option("help", short: "h", help: "Show this help.")

    /// What `outbox` takes before the command.
    static let toolOptions = [
        store,
        keyFile,
        Option("version", help: "Show the version."),
        Option("help", short: "h", help: "Show this help; 'outbox <command> --help' shows a command's."),
    ]

    /// What every command takes besides its own options.
    static let storeAndHelp = [store, keyFile, help]

    /// The usage line of one command, or of the tool when the error is not about one command.
    static func usage(for command: String?) -> String {
        switch command {
        case "add": "outbox --store <folder> add <photo> ... [--kind <kind>] [--note <text>]"
        case "op": "outbox --store <folder> op --type <type> [--entity <key>] [--lww] [--payload <json>]"
        case "list": "outbox --store <folder> list [--json] [--network <kind>]"
        case "drain": "outbox --store <folder> drain --engine <url> [--watch <seconds>] [--network <kind>]"
        case "send-now": "outbox --store <folder> send-now <id> --engine <url>"
        case "discard": "outbox --store <folder> discard <id>"
        case "keygen": "outbox keygen <file>"
        case "encrypt": "outbox --store <folder> --key-file <file> encrypt"
        default: usage
        }
    }

    /// A command's own options; nil for a name that is no command.
    static func options(for command: String) -> [Option]? {
        switch command {
        case "add": addOptions
        case "op": opOptions
        case "list": [Option("json", help: listJSONHelp), network]
        case "drain": drainOptions
        case "send-now": drainOptions.filter { $0.name != "watch" }
        case "discard", "keygen", "encrypt": []
        default: nil
        }
    }

    static func text(for command: String) -> String {
        switch command {
        case "add": add
        case "op": op
        case "list": list
        case "drain": drain
        case "send-now": sendNow
        case "keygen": keygen
        case "encrypt": encrypt
        default: discard
        }
    }

    static let overview = HelpText(
        overview: """
            Keep captures on this device until the engine has them: queue prepared photos and other \
            operations, send them exactly once and in order, and see what is waiting.
            """,
        usage: usage,
        sections: [
            .entries(
                title: "COMMANDS",
                [
                    .init("add <photo> ...", "Prepare each photo and queue it as a capture; print its id."),
                    .init("op --type <type>", "Queue one operation of any type, as an app would; print its id."),
                    .init("list", "Show what the outbox holds."),
                    .init("drain --engine <url>", "Send the queue to the engine, and retire what it took."),
                    .init("send-now <id>", "Send one entry now, even a parked one, then the rest."),
                    .init("discard <id>", "Delete an entry from the outbox without sending it."),
                    .init("keygen <file>", "Write a new 256-bit key to a file only you can read."),
                    .init("encrypt", "Encrypt a plaintext outbox in place with --key-file."),
                ]),
            .options(title: "OPTIONS", toolOptions),
            .text(
                title: "ENCRYPTION",
                """
                With a key, every entry's payload and every photo or other file is encrypted with
                AES-256-GCM before it is written, so that whoever copies the folder reads nothing of
                them. An encrypted outbox opens only with its key; keep the key file outside the
                folder (one inside it is refused). What stays readable: ids, states, attempts,
                times, entity keys and file names. See docs/encryption.md.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 on success; 1 when something failed, or when drain left entries in the queue;
                2 for a usage error.
                """),
            .text(
                title: "EXAMPLES",
                """
                outbox --store ~/outbox add --kind plate IMG_1025.jpg IMG_1026.jpg
                outbox --store ~/outbox op --type note.update --entity note:42 --payload '{"text": "gate"}'
                outbox --store ~/outbox drain --engine http://127.0.0.1:8080
                outbox --store ~/outbox list --json
                outbox keygen ~/.outbox.key && outbox --store ~/outbox --key-file ~/.outbox.key add IMG_1027.jpg
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
                        "JPEG, HEIF (HEIC, AVIF) or PNG files; each becomes one capture with one JPEG upload copy (long edge at most --max-edge, the original EXIF carried)."
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

    static let opOptions = [
        Option(
            "type", value: .required(placeholder: "type"),
            help: "What the operation does, for example note.update: letters, digits, '.', '-' and '_'."),
        Option(
            "entity", value: .required(placeholder: "key", takesAnyWord: true),
            help: "What it is about, for example note:42. Operations on one entity reach the engine in order."),
        Option(
            "lww", help: "Last write wins: replace the entity's last operation of this type if it was never sent."),
        Option(
            "payload", value: .required(placeholder: "json", takesAnyWord: true),
            help: "Its arguments, one JSON value, sent as they are. (default: null)"),
        Option(
            "attach", value: .required(placeholder: "file"),
            help: "A file to upload before the operation; repeat for more, in order."),
    ]

    static let op = HelpText(
        overview: "Queue one operation, as an app that edits notes or logs sets would, and print its id.",
        usage: usage(for: "op"),
        sections: [
            .options(title: "OPTIONS", opOptions + [help]),
            .text(
                title: nil,
                """
                The operation is version 1 of its type. drain sends it with POST /v1/operations (a
                photo capture, type capture.create, goes to /v1/captures as add's do), after its
                attachments; an entity's operations go in the order they were queued, and while one
                of them is parked or backing off the later ones wait behind it, while other
                entities go on. With --lww, an operation that was queued last for its entity, of the
                same type, and never sent is replaced: it and its files are deleted.
                """),
            .text(
                title: "OUTPUT",
                """
                The new operation's id on stdout once it is on disk (flushed: it survives a crash or
                a power cut); on stderr, the id it replaced, if it replaced one.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when it was queued; 1 when it was not (its payload is not JSON, a file cannot be
                read); 2 for a usage error.
                """),
        ]
    ).rendered

    static let listJSONHelp = """
        One JSON object per entry on stdout: {"id", "state", "attempts", "lastError", "nextAttemptAt", \
        "waitsForSendNow", "entity", "type", "blockedBy", "status", "waitsForNetwork"}, then one last line \
        {"unreadable": N}, the records this version cannot read (kept on the device, never sent). state is the \
        stored state (QUEUED, SYNCING, SYNCED, FAILED_NEEDS_ATTENTION), status the word the table shows; \
        blockedBy is the id of the earlier entry of the same entity that it waits behind, or null; \
        waitsForNetwork the network it waits for ("Wi-Fi"), or null.
        """

    static let list = HelpText(
        overview: "Show what the outbox holds, in queue order.",
        usage: usage(for: "list"),
        sections: [
            .options(title: "OPTIONS", options(for: "list")! + [help]),
            .entries(
                title: "STATUS",
                [
                    .init("pending", "Queued; the next drain sends it."),
                    .init("sending", "Being sent by a drain right now."),
                    .init(
                        "retrying",
                        "Queued after a failure that may pass; automatic passes wait until its next try (shown)."),
                    .init("needs-send-now", "Its automatic retries ran out: only send-now sends it again."),
                    .init("blocked", "Waits behind an earlier entry of its entity (shown), which must go first."),
                    .init(
                        "waits-network",
                        "Not sent on the network --network names (a photo on a metered one): waits for Wi-Fi, using no retry."
                    ),
                    .init(
                        "parked",
                        "The engine refused it, or its file is gone; see LAST ERROR, then send-now or discard."),
                    .init("delivered", "The engine has it; the next drain retires it."),
                    .init(
                        "unreadable",
                        "This version cannot read the record (see LAST ERROR): never sent, kept until discarded."),
                ]),
            .text(
                title: nil,
                """
                The table shows each entry's type and entity once the store holds more than photo
                captures, and what holds an entry back where the last error goes. A store this user
                may read but not change (another user's, a read-only disk) is read as it is, without
                changing anything, and a note on stderr says so.
                """),
        ]
    ).rendered

    static let network = Option(
        "network", value: .required(placeholder: "kind"),
        help:
            "The network this machine is on: unmetered (Wi-Fi or a wire), metered (cellular, a hotspot), constrained (low data mode), or metered,constrained. Photo captures wait for an unmetered one; other operations go on any. (default: unmetered)"
    )

    static let drainOptions = [
        Option(
            "engine", value: .required(placeholder: "url"),
            help: "The engine's base URL, for example http://127.0.0.1:8080."),
        Option(
            "watch", value: .required(placeholder: "seconds"),
            help:
                "Keep draining with the library's scheduler: a pass every <seconds>, and sooner when a failed send's backoff ends, until Ctrl-C or SIGTERM."
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
        network,
    ]

    static let drain = HelpText(
        overview: "Send the queue to the engine in queue order, and retire what it took.",
        usage: usage(for: "drain"),
        sections: [
            .options(title: "OPTIONS", drainOptions + [help]),
            .text(
                title: nil,
                """
                The first pass is the one you asked for, like pull to refresh: it tries every queued
                entry now, whatever its backoff or retry count. The later passes of --watch are
                automatic: they keep to the backoff and the retry limit, and pass over an entry that
                is backing off. A pass stops at the first failure that may pass (no connection, a
                timeout, HTTP 409, 429 or 5xx, or a success that is not the engine's own answer, such
                as a Wi-Fi login page); the engine's Retry-After, up to an hour, holds every
                automatic pass back until it has passed; an entry
                the engine refuses for good (HTTP 422 and other 4xx), or whose file is missing, is
                parked and the pass goes on. Operations on one entity go in the order they were
                queued: those behind one that is parked, backing off or unreadable wait, and other
                entities go on.

                Ctrl-C or SIGTERM stops the drain at once: an entry being sent goes back to the
                queue unsent, its attempt not counted. A second one exits without waiting.
                """),
            .text(
                title: "OUTPUT",
                """
                The ids the engine took, one per line on stdout, as each pass retires them; what is
                left and the parked entries with their reasons on stderr; on a terminal, the upload's
                progress on stderr.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when nothing is left queued (parked entries, and those waiting behind them, wait for
                you and do not count), 1 otherwise, 2 for a usage error.
                """),
        ]
    ).rendered

    static let sendNow = HelpText(
        overview: """
            Send one entry now, ahead of the queue and of its backoff, even a parked one or one whose \
            automatic retries ran out; then drain the rest as usual, the entries of its entity that \
            waited behind it included.
            """,
        usage: usage(for: "send-now"),
        sections: [
            .entries(title: "ARGUMENTS", [.init("<id>", "The entry's id, as add or op printed it and list shows it.")]),
            .options(title: "OPTIONS", options(for: "send-now")! + [help]),
            .text(
                title: nil,
                """
                An entry that waits behind an earlier one of its entity is not sent out of turn: send
                or discard that one first. Ctrl-C or SIGTERM stops it as it stops drain.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when the engine took the entry, 1 otherwise, 2 for a usage error.
                """),
        ]
    ).rendered

    static let discard = HelpText(
        overview: """
            Delete an entry from the outbox, its photos and other files included, without sending it. \
            What the engine already received stays there; the entries of its entity that waited behind \
            it go on.
            """,
        usage: usage(for: "discard"),
        sections: [
            .entries(
                title: "ARGUMENTS",
                [
                    .init(
                        "<id>",
                        "The entry's id, as add or op printed it and list shows it; for a record without a valid id, "
                            + "'#SEQUENCE' as list shows it (quoted: '#' starts a comment in a shell).")
                ]),
            .options(title: "OPTIONS", [help]),
            .text(
                title: "EXIT STATUS",
                """
                0 when it was deleted, 1 when the outbox holds no such entry, 2 for a usage error.
                """),
        ]
    ).rendered

    static let keygen = HelpText(
        overview: "Write a new 256-bit key for an encrypted outbox to a new file, readable and writable by you only.",
        usage: usage(for: "keygen"),
        sections: [
            .entries(
                title: "ARGUMENTS", [.init("<file>", "Where to write it; nothing already there is ever overwritten.")]),
            .options(title: "OPTIONS", [help]),
            .text(
                title: nil,
                """
                The file holds 64 hexadecimal digits from the system's secure random generator, mode
                0600. Keep it outside every outbox folder, and keep a copy somewhere safe: an outbox
                encrypted with it cannot be read without it.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when it was written, 1 when it was not (something is there already), 2 for a usage error.
                """),
        ]
    ).rendered

    static let encrypt = HelpText(
        overview: "Encrypt a plaintext outbox in place with the key in --key-file.",
        usage: usage(for: "encrypt"),
        sections: [
            .options(title: "OPTIONS", [help]),
            .text(
                title: nil,
                """
                Every entry's payload and every file is encrypted, and the database is rewritten so
                that no page of the old plaintext stays in it or in its log. It is atomic: killed at
                any moment, the outbox is left either as it was or encrypted, with nothing lost. It
                runs only when no other outbox command has the folder open. Copies made before (a
                backup) stay as they were.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when the outbox is encrypted with the key (already, or now), 1 when it is not, 2 for
                a usage error.
                """),
        ]
    ).rendered
}
