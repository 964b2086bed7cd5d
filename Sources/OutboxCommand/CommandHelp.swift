/// What `outbox --help` and `outbox <command> --help` say, and the usage line after a usage error.
enum CommandHelp {
    static let usage = "Usage: outbox --store <folder> <command> [options]"

    /// The usage line of one command, or of the tool when the error is not about one command.
    static func usage(for command: String?) -> String {
        switch command {
        case "add": "Usage: outbox --store <folder> add <photo> ... [--kind <kind>] [--note <text>]"
        case "list": "Usage: outbox --store <folder> list [--json]"
        case "drain": "Usage: outbox --store <folder> drain --engine <url> [--watch <seconds>]"
        case "send-now": "Usage: outbox --store <folder> send-now <id> --engine <url>"
        case "discard": "Usage: outbox --store <folder> discard <id>"
        default: usage
        }
    }

    static func text(for command: String) -> String? {
        switch command {
        case "add": add
        case "list": list
        case "drain": drain
        case "send-now": sendNow
        case "discard": discard
        default: nil
        }
    }

    static let overview = """
        OVERVIEW: Keep captures on this device until the engine has them: queue prepared photos,
        send them exactly once, and see what is waiting.

        \(usage)

        COMMANDS:
          add <photo> ...         Prepare each photo and queue it as a capture; print its id.
          list                    Show what the outbox holds.
          drain --engine <url>    Send the queue to the engine, and retire what it took.
          send-now <id>           Send one capture now, even a parked one, then the rest.
          discard <id>            Delete a capture from the outbox without sending it.

        OPTIONS:
          --store <folder>        The outbox: outbox.sqlite and media/ in this folder, created
                                  when absent. Several outbox commands may use it at once.
          --version               Show the version.
          -h, --help              Show this help; 'outbox <command> --help' shows a command's.

        EXIT STATUS:
          0 on success; 1 when something failed, or when drain left captures in the queue;
          2 for a usage error.

        EXAMPLES:
          outbox --store ~/outbox add --kind plate IMG_1025.jpg IMG_1026.jpg
          outbox --store ~/outbox drain --engine http://127.0.0.1:8080
          outbox --store ~/outbox list --json
        """

    static let add = """
        OVERVIEW: Prepare photos and queue each one as a capture.

        \(usage(for: "add"))

        ARGUMENTS:
          <photo>                 JPEG files; each becomes one capture with one upload copy
                                  (long edge at most --max-edge, the original EXIF carried).

        OPTIONS:
          --kind <kind>           What was captured, in the app's own words. (default: photo)
          --note <text>           The note of every capture; surrounding whitespace is trimmed.
          --max-edge <pixels>     Longest edge of the upload copy. (default: 2048)
          --quality <1-100>       JPEG quality of the upload copy. (default: 85)
          -h, --help              Show this help.

        OUTPUT:
          One id per line on stdout, in the order of the photos, each printed once its capture
          is on disk (flushed: it survives a crash or a power cut). The id comes from the kind,
          the note and the upload copy's bytes, so adding the same photo again with the same
          kind and note prints the same id and queues nothing new. Failures name the photo on
          stderr.

          Photos are queued one at a time, in order. Killed part-way, add leaves every photo
          whose id it printed queued, the photo it was working on queued whole or not at all,
          and the photos after it untouched; running the same add again finishes the job
          without queuing anything twice.

        EXIT STATUS:
          0 when every photo was queued, 1 when some failed, 2 for a usage error.
        """

    static let list = """
        OVERVIEW: Show what the outbox holds, in capture order.

        \(usage(for: "list"))

        OPTIONS:
          --json                  One JSON object per capture on stdout: {"id", "state",
                                  "attempts", "lastError", "nextAttemptAt", "waitsForSendNow"},
                                  then one last line {"unreadable": N}, the records this version
                                  cannot read (kept on the device, never sent).
          -h, --help              Show this help.

        STATES:
          QUEUED                  Waiting to be sent (after a failure, until its backoff ends).
          SYNCING                 Being sent by a drain right now.
          SYNCED                  The engine has it; the next drain retires it.
          FAILED_NEEDS_ATTENTION  Parked: the engine refused it; see lastError, then send-now or discard.
        """

    static let drain = """
        OVERVIEW: Send the queue to the engine in capture order, and retire what it took.

        \(usage(for: "drain"))

        OPTIONS:
          --engine <url>          The engine's base URL, for example http://127.0.0.1:8080.
          --watch <seconds>       Keep draining: a pass every <seconds>, and sooner when a failed
                                  send's backoff ends. Stop it with Ctrl-C or SIGTERM.
          --timeout <seconds>     Fail a request after this long with no byte moving. (default: 30)
          --retry-delay <seconds> The first wait after a failure; each one after it doubles, up
                                  to 15 minutes. (default: 2)
          --retry-limit <count>   Automatic retries before a capture waits for send-now. (default: 8)
          -h, --help              Show this help.

          The first pass is the one you asked for, like pull to refresh: it tries every queued
          capture now, whatever its backoff or retry count. The later passes of --watch are
          automatic: they keep to the backoff and the retry limit. A pass stops at the first
          failure that may pass (no connection, a timeout, HTTP 409, 429 or 5xx) and honours the
          engine's Retry-After; a capture the engine refuses for good (HTTP 422 and other 4xx)
          is parked and the pass goes on with the next one.

        OUTPUT:
          The ids the engine took, one per line on stdout, as each pass retires them; what is
          left and the parked captures with their reasons on stderr; on a terminal, the upload's
          progress on stderr.

        EXIT STATUS:
          0 when nothing is left queued (parked captures wait for you, and do not count),
          1 otherwise, 2 for a usage error.
        """

    static let sendNow = """
        OVERVIEW: Send one capture now, ahead of the queue and of its backoff, even a parked one
        or one whose automatic retries ran out; then drain the rest as usual.

        \(usage(for: "send-now"))

        ARGUMENTS:
          <id>                    The capture's id, as add printed it and list shows it.

        OPTIONS:
          --engine <url>          The engine's base URL.
          --timeout <seconds>     Fail a request after this long with no byte moving. (default: 30)
          --retry-delay <seconds> The backoff after a failure, as for drain. (default: 2)
          --retry-limit <count>   Automatic retries before a capture waits for send-now. (default: 8)
          -h, --help              Show this help.

        EXIT STATUS:
          0 when the engine took the capture, 1 otherwise, 2 for a usage error.
        """

    static let discard = """
        OVERVIEW: Delete a capture from the outbox, its photos included, without sending it.
        What the engine already received stays there.

        \(usage(for: "discard"))

        ARGUMENTS:
          <id>                    The capture's id, as add printed it and list shows it.

        EXIT STATUS:
          0 when it was deleted, 1 when the outbox holds no such capture, 2 for a usage error.
        """
}
