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
    var workFolder: String?
    /// A `--json` file to print the tables of (and check) instead of measuring.
    var reportPath: String?
    /// Whether to skip SSIM (it needs a full decode and a float resample per photo and tool).
    var skipsQuality = false

    static let usage = "Usage: prep-bench [options] <folder-of-jpegs>"

    static let help = """
        OVERVIEW: Time ImagePrep's whole job (upload copy with EXIF, display copy, thumbnail,
        metadata) beside vipsthumbnail making only its 2048 copy, in the same run, and print
        ratios, peak RSS, bytes and SSIM-Y against a float Lanczos3 reference.

        \(usage)

        ARGUMENTS:
          <folder-of-jpegs>       The benchmark photos (e.g. ../shared/bench/photos). Photos of more
                                  than \(PhotoSet.largePhotoMegapixels) MP get rows of their own.

        OPTIONS:
          --extra <file>          One more photo, e.g. the 48 MP one that Benchmarks/make-48mp.sh
                                  makes. Repeatable.
          --runs <count>          Timed runs per photo and tool, after a warm-up. (default: 5)
          --batch-runs <count>    Timed whole-folder batches per tool. (default: 5)
          --jobs <count>          Batch workers. (default: one per core, \(ProcessInfo.processInfo.activeProcessorCount) here)
          --fast                  Add rows for the speed mode (prep-photo --fast).
          --check [<file.json>]   Exit 1 naming each goal missed. (default: Benchmarks/thresholds.json)
          --prep-photo <path>     The prep-photo to time. (default: the one beside prep-bench)
          --vips <path|none>      The vipsthumbnail to compare with. (default: from PATH)
          --limit <count>         Only the first <count> photos of the folder.
          --json <file>           Write every raw number there.
          --work <folder>         Where outputs go. (default: a new folder in /tmp)
          --no-quality            Skip SSIM (faster; --check then cannot judge quality).
          --report <file.json>    Print the tables of an earlier --json run (no folder needed).
          -h, --help              Show this help.

        EXIT STATUS:
          0 when done (and, with --check, every goal met), 1 when a goal is missed or a tool
          fails, 64 for a usage error.

        The machine may be shared: read the ratios, which come from the same run, and rerun when
        in doubt. Build with -c release first.
        """

    /// A usage error, worded as swift-argument-parser words them.
    struct UsageError: Error {
        let message: String
    }

    enum Action {
        case run(BenchOptions)
        case showHelp
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        var options = BenchOptions()
        var remaining = arguments[...]
        var folders: [String] = []
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("-") else {
                folders.append(argument)
                continue
            }
            func value(for name: String, placeholder: String) throws(UsageError) -> String {
                guard let value = remaining.popFirst() else {
                    throw UsageError(message: "Missing value for '\(name) <\(placeholder)>'.")
                }
                return value
            }
            func count(for name: String) throws(UsageError) -> Int {
                let text = try value(for: name, placeholder: "count")
                guard let number = Int(text), number >= 1 else {
                    throw UsageError(
                        message:
                            "The value '\(text)' is invalid for '\(name) <count>': it must be a whole number at least 1."
                    )
                }
                return number
            }
            switch argument {
            case "-h", "--help": return .showHelp
            case "--extra": options.extraPhotos.append(try value(for: argument, placeholder: "file"))
            case "--runs": options.runs = try count(for: argument)
            case "--batch-runs": options.batchRuns = try count(for: argument)
            case "--jobs": options.jobs = try count(for: argument)
            case "--fast": options.includesFastMode = true
            case "--check":
                // The file is optional; a following argument is taken as it only when it names JSON,
                // so that `--check FOLDER` still reads FOLDER as the photos.
                if let next = remaining.first, next.hasSuffix(".json") {
                    options.thresholdsPath = next
                    remaining.removeFirst()
                } else {
                    options.thresholdsPath = defaultThresholdsPath()
                }
            case "--prep-photo": options.prepPhotoPath = try value(for: argument, placeholder: "path")
            case "--vips":
                let path = try value(for: argument, placeholder: "path|none")
                options.vipsthumbnailPath = path == "none" ? nil : path
            case "--limit": options.limit = try count(for: argument)
            case "--json": options.jsonPath = try value(for: argument, placeholder: "file")
            case "--work": options.workFolder = try value(for: argument, placeholder: "folder")
            case "--no-quality": options.skipsQuality = true
            case "--report": options.reportPath = try value(for: argument, placeholder: "file.json")
            default: throw UsageError(message: "Unknown option '\(argument)'.")
            }
        }
        if options.reportPath != nil, folders.isEmpty { return .run(options) }
        guard folders.count == 1 else {
            throw UsageError(
                message: folders.isEmpty
                    ? "Missing expected argument '<folder-of-jpegs>'."
                    : "Expected one folder of JPEGs, got \(folders.count): \(folders.map { "'\($0)'" }.joined(separator: ", "))."
            )
        }
        options.photoFolder = folders[0]
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
