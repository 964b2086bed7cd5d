import CommandLineParser
import Foundation

/// What the benchmark was asked to do, parsed from the command line.
struct BenchOptions {
    /// The folder of JPEGs; every `.jpg`/`.jpeg` in it is a benchmark photo.
    var photoFolder = ""
    /// More photos outside the folder, typically the 48 MP one from `Benchmarks/make-48mp.sh`.
    var extraPhotos: [String] = []
    /// Timed runs per photo and tool, after one warm-up run.
    var runs = 5
    /// Timed whole-folder batches per tool.
    var batchRuns = 5
    /// Workers for the batches: one per core unless told.
    var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Whether to add the speed mode (`dctScaleTolerance` 0.03, `prep-photo --fast`) rows.
    var includesFastMode = false
    /// The thresholds file to check against; nil when `--check` was not given.
    var thresholdsPath: String?
    /// The `prep-photo` executable timed as a subprocess.
    var prepPhotoPath = BenchOptions.executableBesideThisOne(named: "prep-photo")
    /// The `vipsthumbnail` executable; nil to run without the peer.
    var vipsthumbnailPath: String? = BenchOptions.searchPath(for: "vipsthumbnail")
    /// Only the first N photos of the folder (sorted by name).
    var limit: Int?
    /// Where to write every raw number as JSON.
    var jsonPath: String?
    /// Where outputs go; a fresh folder under the temporary directory unless told.
    var workFolder = NSTemporaryDirectory() + "prep-bench-\(ProcessInfo.processInfo.processIdentifier)"
    /// A `--json` file to print the tables of (and check) instead of measuring.
    var reportPath: String?
    /// Whether to skip SSIM (it needs a full decode and a float resample per photo and tool).
    var skipsQuality = false
    /// A folder of HEIC files (`Benchmarks/make-heic.sh`) for the HEIC rows; nil for none.
    var heicFolder: String?
    /// libde265's own decoder command, for the HEVC floor beside the HEIC rows; nil for none.
    var dec265Path: String? = BenchOptions.searchPath(for: "dec265") ?? BenchOptions.searchPath(for: "libde265-dec265")
    /// Photos of about 200 MP (`Benchmarks/make-200mp.sh`), timed with their peak memory alone.
    var hugePhotos: [String] = []
    /// Files of other formats (a phone screenshot PNG, a WebP photo, an animated GIF), each timed
    /// alone beside vipsthumbnail and its format's decoder (`FormatRun`); with no folder, only these.
    var formatFiles: [String] = []

    static let usage = "prep-bench [options] <folder-of-jpegs>"

    /// The options, each the one value that the parser, the help and `parse` read.
    enum Options {
        static let extra = Option(
            "extra", value: .required(placeholder: "file"),
            help: "One more photo, e.g. the 48 MP one that Benchmarks/make-48mp.sh makes. Repeatable.")
        static let runs = Option(
            "runs", value: .required(placeholder: "count"),
            help: "Timed runs per photo and tool, after a warm-up. (default: 5)")
        static let batchRuns = Option(
            "batch-runs", value: .required(placeholder: "count"),
            help: "Timed whole-folder batches per tool. (default: 5)")
        static let jobs = Option(
            "jobs", short: "j", value: .required(placeholder: "count"),
            help: "Batch workers. (default: one per core, \(ProcessInfo.processInfo.activeProcessorCount) here)")
        static let fast = Option("fast", help: "Add rows for the speed mode (prep-photo --fast).")
        static let check = Option(
            "check", value: .optional(placeholder: "file.json", separateWordSuffix: ".json"),
            help: "Exit 1 naming each goal missed. (default: Benchmarks/thresholds.json)")
        static let prepPhoto = Option(
            "prep-photo", value: .required(placeholder: "path"),
            help: "The prep-photo to time. (default: the one beside prep-bench)")
        static let vips = Option(
            "vips", value: .required(placeholder: "path|none"),
            help: "The vipsthumbnail to compare with. (default: from PATH)")
        static let limit = Option(
            "limit", value: .required(placeholder: "count"), help: "Only the first <count> photos of the folder.")
        static let json = Option("json", value: .required(placeholder: "file"), help: "Write every raw number there.")
        static let work = Option(
            "work", value: .required(placeholder: "folder"), help: "Where outputs go. (default: a new folder in /tmp)")
        static let noQuality = Option("no-quality", help: "Skip SSIM (faster; --check then cannot judge quality).")
        static let heic = Option(
            "heic", value: .required(placeholder: "folder"),
            help:
                "Add HEIC rows: prep-photo and vipsthumbnail on the .heic files that Benchmarks/make-heic.sh makes (time and RSS; no SSIM)."
        )
        static let dec265 = Option(
            "dec265", value: .required(placeholder: "path|none"),
            help:
                "libde265's decoder, for the HEVC floor beside the HEIC rows: it decodes each HEIC's tiles alone, from the .hevc beside it. (default: dec265 or libde265-dec265 from PATH)"
        )
        static let huge = Option(
            "huge", value: .required(placeholder: "file"),
            help:
                "A photo of about 200 MP (JPEG or HEIC, Benchmarks/make-200mp.sh makes both): prep-photo and vipsthumbnail on it alone, with their peak memory. Repeatable."
        )
        static let format = Option(
            "format", value: .required(placeholder: "file"),
            help:
                "A PNG, GIF, WebP, TIFF, DNG, JPEG XL or JPEG 2000 file: prep-photo beside vipsthumbnail on it alone and on copies of it in a batch, and beside the format's own library decoding it alone. Repeatable; without <folder-of-jpegs>, only these rows."
        )
        static let decodeFloor = Option(
            "decode-floor", value: .required(placeholder: "file"),
            help: "Decode a GIF or WebP with its own library alone and exit: the floor that --format times.")
        static let report = Option(
            "report", value: .required(placeholder: "file.json"),
            help: "Print the tables of an earlier --json run (no folder needed).")
        static let help = Option("help", short: "h", help: "Show this help.")
    }

    static let options: [Option] = [
        Options.extra,
        Options.runs,
        Options.batchRuns,
        Options.jobs,
        Options.fast,
        Options.check,
        Options.prepPhoto,
        Options.vips,
        Options.limit,
        Options.json,
        Options.work,
        Options.noQuality,
        Options.heic,
        Options.dec265,
        Options.huge,
        Options.format,
        Options.decodeFloor,
        Options.report,
        Options.help,
    ]

    static let help = HelpText(
        overview: """
            Time ImagePrep's whole job (upload copy with EXIF, display copy, thumbnail, metadata) beside \
            vipsthumbnail making only its 2048 copy, in the same run, and print ratios, peak RSS, bytes and \
            SSIM-Y against a float Lanczos3 reference.
            """,
        usage: usage,
        sections: [
            .entries(
                title: "ARGUMENTS",
                [
                    .init(
                        "<folder-of-jpegs>",
                        "The benchmark photos (e.g. ../shared/bench/photos). Photos of more than \(PhotoSet.largePhotoMegapixels) MP get rows of their own."
                    )
                ]),
            .options(title: "OPTIONS", options),
            .text(
                title: "EXIT STATUS",
                """
                0 when done (and, with --check, every goal met), 1 when a goal is missed or a tool
                fails, 2 for a usage error.
                """),
            .text(
                title: nil,
                """
                The machine may be shared: read the ratios, which come from the same run, and rerun when
                in doubt. Build with -c release first.
                """),
        ]
    ).rendered

    enum Action {
        case run(BenchOptions)
        case showHelp
        /// `--decode-floor FILE`: one decode, timed by the run that started this process.
        case decodeFloor(String)
    }

    static func parse(_ arguments: [CommandLineArgument]) throws(UsageError) -> Action {
        let parsed = try ArgumentParser(options: options).parse(arguments)
        if parsed.has(Options.help) { return .showHelp }
        var options = BenchOptions()
        options.extraPhotos = try parsed.strings(Options.extra)
        options.runs = try parsed.integer(Options.runs, in: 1...Int.max) ?? options.runs
        options.batchRuns = try parsed.integer(Options.batchRuns, in: 1...Int.max) ?? options.batchRuns
        options.jobs = try parsed.integer(Options.jobs, in: 1...Int.max) ?? options.jobs
        options.includesFastMode = parsed.has(Options.fast)
        if parsed.has(Options.check) {
            options.thresholdsPath = try parsed.string(Options.check) ?? defaultThresholdsPath()
        }
        options.prepPhotoPath = try parsed.string(Options.prepPhoto) ?? options.prepPhotoPath
        if let vips = try parsed.string(Options.vips) { options.vipsthumbnailPath = vips == "none" ? nil : vips }
        options.limit = try parsed.integer(Options.limit, in: 1...Int.max)
        options.jsonPath = try parsed.string(Options.json)
        options.workFolder = try parsed.string(Options.work) ?? options.workFolder
        options.skipsQuality = parsed.has(Options.noQuality)
        options.heicFolder = try parsed.string(Options.heic)
        if let dec265 = try parsed.string(Options.dec265) { options.dec265Path = dec265 == "none" ? nil : dec265 }
        options.hugePhotos = try parsed.strings(Options.huge)
        options.reportPath = try parsed.string(Options.report)
        options.formatFiles = try parsed.strings(Options.format)
        if let file = try parsed.string(Options.decodeFloor) { return .decodeFloor(file) }

        let folders = parsed.arguments
        if options.reportPath != nil || !options.formatFiles.isEmpty, folders.isEmpty { return .run(options) }
        guard let folder = folders.first else { throw UsageError("Missing expected argument '<folder-of-jpegs>'") }
        try parsed.expectNoArguments(after: 1)
        options.photoFolder = try folder.text(for: "<folder-of-jpegs>")
        return .run(options)
    }

    /// `Benchmarks/thresholds.json` of the checkout that built this executable
    /// (`.build/release/prep-bench` sits three folders below the package root), else relative to
    /// the working directory.
    static func defaultThresholdsPath() -> String {
        let executable = URL(fileURLWithPath: executablePath())
        let packageRoot = executable.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = packageRoot.appendingPathComponent("Benchmarks/thresholds.json").path
        return FileManager.default.fileExists(atPath: candidate) ? candidate : "Benchmarks/thresholds.json"
    }

    /// `name` in the folder of this executable: `swift build` puts every product side by side.
    static func executableBesideThisOne(named name: String) -> String {
        URL(fileURLWithPath: executablePath()).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// The absolute path of the running executable (argv[0] may be relative or a bare name).
    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The first executable `name` on PATH, or nil.
    static func searchPath(for name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
