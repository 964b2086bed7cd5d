import CommandLineParser
import CommandSupport
import ImagePrep
import Outbox
import PhotoCapture

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox add`: prepares each photo and queues it, one at a time and in order, printing each id
/// only once its capture is durable.
///
/// One at a time, so that a kill leaves a simple state behind: the photos before the current
/// one queued and printed, the current one queued whole or not at all, the rest untouched. And
/// `commitOnce` with the file's modification time as the moment of saving, so that running the
/// same add again after a kill queues nothing twice.
struct AddCommand: Subcommand {
    let photos: [String]
    let kind: String
    let note: String
    let maxEdge: Int
    let quality: Int
    let store: StoreLocation

    static let name = "add"
    static let summary = HelpText.Entry(
        "add <photo> ...", "Prepare each photo and queue it as a capture; print its id.")
    static let usage = "outbox --store <folder> add <photo> ... [--kind <kind>] [--note <text>]"

    enum Options {
        static let kind = Option(
            "kind", value: .required(placeholder: "kind", takesAnyWord: true),
            help: "What was captured, in the app's own words. (default: photo)")
        static let note = Option(
            "note", value: .required(placeholder: "text", takesAnyWord: true),
            help: "The note of every capture; surrounding whitespace is trimmed.")
        static let maxEdge = Option(
            "max-edge", value: .required(placeholder: "pixels"),
            help: "Longest edge of the upload copy. (default: 2048)")
        static let quality = Option(
            "quality", value: .required(placeholder: "1-100"), help: "JPEG quality of the upload copy. (default: 85)")
    }

    static let options = [Options.kind, Options.note, Options.maxEdge, Options.quality]

    static let help = HelpText(
        overview: "Prepare photos and queue each one as a capture.",
        usage: usage,
        sections: [
            .entries(
                title: "ARGUMENTS",
                [
                    .init(
                        "<photo>",
                        "JPEG, HEIF (HEIC, AVIF) or PNG files; each becomes one capture with one JPEG upload copy (long edge at most --max-edge, the original EXIF carried)."
                    )
                ]),
            .options(title: "OPTIONS", options + [OutboxTool.commandHelp]),
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
    )

    init(_ arguments: CommandArguments) throws(UsageError) {
        let parsed = arguments.parsed
        guard !parsed.arguments.isEmpty else { throw UsageError("Missing expected argument '<photo> ...'") }
        photos = try parsed.arguments.map { photo throws(UsageError) in try photo.text(for: "<photo>") }
        kind = try parsed.string(Options.kind) ?? "photo"
        note = try parsed.string(Options.note) ?? ""
        maxEdge = try parsed.integer(Options.maxEdge, in: 1...65535) ?? 2048
        quality = try parsed.integer(Options.quality, in: 1...100) ?? 85
        store = try arguments.store()
    }

    /// Queues the photos.
    ///
    /// - Returns: The exit status: 0 when every photo was queued, 1 when some failed.
    func run() async -> Int32 {
        let store = store.open()
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = maxEdge
        configuration.quality = quality
        // The outbox keeps the upload copy only; the app makes its own display copies.
        configuration.displayEdge = nil
        configuration.thumbnailEdge = nil
        let preparer: PhotoPreparer
        do {
            preparer = try PhotoPreparer(configuration: configuration)
        } catch {
            Terminal.writeError("outbox: error: \(error)\n")
            return 2
        }
        let workspace = PreparationWorkspace()
        var failures = 0
        for path in photos {
            do {
                let photo = try await preparer.prepare(contentsOf: URL(fileURLWithPath: path), workspace: workspace)
                for warning in photo.warnings {
                    Terminal.writeError("outbox: warning: '\(path)': \(warning.message)\n")
                }
                let saved = try await store.commitOnce(
                    idPrefix: Self.idPrefix(kind: kind), kind: kind, note: note, photos: [photo],
                    savedAt: Self.modificationDate(of: path))
                Terminal.writeOutput(saved.id + "\n")
                if saved.result == .alreadyQueued {
                    Terminal.writeError("outbox: '\(path)' was already queued as '\(saved.id)'.\n")
                }
            } catch let error as ImagePrepError {
                failures += 1
                Terminal.writeError("outbox: error: \(error.description)\n")
            } catch {
                failures += 1
                Terminal.writeError("outbox: error: '\(path)' was prepared but not queued: \(error)\n")
            }
        }
        return failures == 0 ? 0 : 1
    }

    /// When the photo's file was last written: the capture time of a photo that does not carry
    /// its own with a UTC offset. The same file gives the same moment however often it is added,
    /// so that adding it again derives the same id; "now" would make every run a new capture.
    static func modificationDate(of path: String) -> Date {
        (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
    }

    /// The start of each id: the kind's letters, digits, '-' and '_' (at most 32 of them) and a
    /// '-', so that ids say what they are ("plate-3f2a…"); "capture-" when none are left.
    static func idPrefix(kind: String) -> String {
        let kept = kind.unicodeScalars.filter { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-"
                    || scalar == "_")
        }
        let prefix = String(String.UnicodeScalarView(kept.prefix(32)))
        return (prefix.isEmpty ? "capture" : prefix) + "-"
    }
}
