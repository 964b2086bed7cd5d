import CommandLineParser
import ImagePrep

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the user asked for on the command line.
struct CommandLineOptions {
    var inputs: [BytePath] = []
    var fileLists: [BytePath] = []
    var listSeparator = UInt8(ascii: "\n")
    var outputFolder = BytePath("prepared")
    var base: BytePath?
    var isRecursive = false
    /// `--shard I/N`: prepare only every N-th input, starting with the I-th.
    var shard: Shard?
    var existingCopies = ExistingCopies.refuse
    var configuration = PhotoPreparer.Configuration()
    var jobs = ProcessInfo.processInfo.activeProcessorCount
    var emitsJSON = false
    var isQuiet = false
    var isVerbose = false

    static let version = "prep-photo \(PhotoPreparer.packageVersion)"

    static let usage = "prep-photo [--out <folder>] [options] <photo-or-folder> ... | --files-from <file>"

    /// The options, each the one value that the parser, the help and `parse` read.
    enum Options {
        static let out = Option(
            "out", short: "o", value: .required(placeholder: "folder"),
            help: "Where the copies go. (default: ./prepared)")
        static let recursive = Option(
            "recursive", short: "r",
            help: "Also prepare the photos in the subfolders of the folders given, keeping their folders under --out.")
        static let filesFrom = Option(
            "files-from", value: .required(placeholder: "file"),
            help: "Also prepare the paths listed in <file>, one per line ('-' reads standard input). Repeatable.")
        static let nullSeparated = Option(
            "null", short: "0", help: "The --files-from paths are separated by NUL bytes, as find -print0 writes them.")
        static let base = Option(
            "base", value: .required(placeholder: "folder"),
            help:
                "Keep each photo's path below <folder> under --out, for lists and -r alike, so that shards of one library fill one --out."
        )
        static let shard = Option(
            "shard", value: .required(placeholder: "i/n"),
            help:
                "Prepare only shard <i> of <n> (i from 0 to n-1): every n-th input, in order, starting with the i-th. Every input's name is read, so that two shards' photos that would write the same copies are refused, as in one run. For lists of files: see docs/sharding."
        )
        static let skipExisting = Option(
            "skip-existing",
            help:
                "Keep a photo whose copies are all there and made from it as it is now (none older than it); prepare the others (a rerun finishes a stopped job)."
        )
        static let overwrite = Option(
            "overwrite", help: "Replace copies that are already there. (default: refuse to, naming the copy)")
        static let maxEdge = Option(
            "max-edge", value: .required(placeholder: "pixels"),
            help: "Longest edge of the upload copy. (default: 2048)")
        static let displayEdge = Option(
            "display-edge", value: .required(placeholder: "pixels"),
            help: "Longest edge of the display copy. (default: 2048)")
        static let thumbEdge = Option(
            "thumb-edge", value: .required(placeholder: "pixels"), help: "Longest edge of the thumbnail. (default: 400)"
        )
        static let quality = Option(
            "quality", value: .required(placeholder: "1-100"), help: "JPEG quality of every copy. (default: 85)")
        static let noDisplay = Option("no-display", help: "Do not write display copies.")
        static let noThumb = Option("no-thumb", help: "Do not write thumbnails.")
        static let noGainMap = Option(
            "no-gain-map",
            help:
                "Upload an HDR photo (Ultra HDR JPEG, an iPhone's or a Samsung's HDR HEIC or JPEG) as its SDR photo alone, without its HDR gain map and with no warning, for engines that cannot store one."
        )
        static let background = Option(
            "background", value: .required(placeholder: "RRGGBB"),
            help:
                "The colour transparent pixels (of a PNG, GIF or WebP) are composited on, as six hexadecimal digits. (default: FFFFFF, white)"
        )
        static let jobs = Option(
            "jobs", short: "j", value: .required(placeholder: "count"),
            help:
                "Photos prepared at once. (default: one per core, \(ProcessInfo.processInfo.activeProcessorCount) here)"
        )
        static let json = Option("json", help: "Print one JSON object per input on stdout, in input order.")
        static let quiet = Option(
            "quiet", short: "q", help: "Print errors only: no warnings, no summary, no progress line.")
        static let verbose = Option(
            "verbose", help: "Name every input left out and why, and print each warning with its photo.")
        static let refuseIncomplete = Option(
            "refuse-incomplete",
            help:
                "Refuse truncated or damaged JPEGs whose missing pixels libjpeg-turbo fills in grey, instead of preparing them with a warning that says how much is missing (the default). Damage that stops the decode is refused either way, and so is a damaged HEIF file."
        )
        static let acceptIncomplete = Option(
            "accept-incomplete",
            help: "Prepare truncated or damaged JPEGs with a warning: the default, kept for scripts that pass it."
        )
        static let maxPixels = Option(
            "max-pixels", value: .required(placeholder: "count"),
            help: "Refuse photos with more pixels than this. (default: 210000000)")
        static let fast = Option(
            "fast",
            help:
                "Speed mode: when a 1/2, 1/4 or 1/8 decode lands at most 3% below --max-edge (2016 for 2048), keep that size and skip the resample."
        )
        static let version = Option("version", help: "Show the version.")
        static let help = Option("help", short: "h", help: "Show this help.")
    }

    static let options: [Option] = [
        Options.out,
        Options.recursive,
        Options.filesFrom,
        Options.nullSeparated,
        Options.base,
        Options.shard,
        Options.skipExisting,
        Options.overwrite,
        Options.maxEdge,
        Options.displayEdge,
        Options.thumbEdge,
        Options.quality,
        Options.noDisplay,
        Options.noThumb,
        Options.noGainMap,
        Options.background,
        Options.jobs,
        Options.json,
        Options.quiet,
        Options.verbose,
        Options.refuseIncomplete,
        Options.acceptIncomplete,
        Options.maxPixels,
        Options.fast,
        Options.version,
        Options.help,
    ]

    static let help = HelpText(
        overview: """
            Prepare photos for upload: an upload copy with the original EXIF, a stripped upright display copy \
            and a thumbnail, all JPEG, plus the capture time and place. Reads JPEG, HEIF (HEIC from \
            iPhones and Android phones, and AVIF), PNG, GIF, WebP, TIFF, BMP, JPEG XL, JPEG 2000, PSD, and \
            camera raw and DNG (the largest preview, else the raw data), told apart by their content, \
            whatever their names; of an animated file, the first frame.
            """,
        usage: usage,
        sections: [
            .entries(
                title: "ARGUMENTS",
                [
                    .init(
                        "<photo-or-folder>",
                        "Photo files, or folders whose image files (.jpg, .jpeg, .heic, .heif, .hif, .avif, .png, .apng, .gif, .webp, .tif, .tiff, .bmp, .jxl, .jp2, .j2k, .psd, .dng, camera raws, and .jxr, which fails in words) are all taken; other files in a folder, hidden names, links to folders and special files are left out and counted."
                    )
                ]),
            .text(
                title: "OUTPUT",
                """
                For each photo NAME.jpg (or NAME.heic, ...) the output folder gets:
                  NAME.jpg              upload copy: long edge at most --max-edge, with the original's
                                        EXIF (GPS included), ICC profile and comment, and an
                                        HDR photo's gain map, as Ultra HDR (see --no-gain-map)
                  NAME.display.jpg      display copy: upright, sRGB, only the comment kept
                  NAME.thumb.jpg        thumbnail: upright, sRGB, only the comment kept
                A photo found in a folder keeps its path below that folder (or below --base);
                a file given by name goes straight into the output folder. Inputs are never
                overwritten, and a photo's copies appear complete and together, or not at all.
                """),
            .options(title: "OPTIONS", options),
            .text(
                title: "EXIT STATUS",
                """
                0 when every photo was prepared (or kept), 1 when some failed, 2 for a usage error.
                Ctrl-C (SIGINT) or SIGTERM lets the photos in flight finish, prints the summary and
                ends with 130 or 143; a second one stops at once. No temporary file is left.
                """),
            .text(
                title: "EXAMPLES",
                """
                prep-photo IMG_1025.jpg
                    Writes prepared/IMG_1025.jpg, .display.jpg and .thumb.jpg.
                prep-photo -r -o ~/upload -j 4 ~/Pictures/Library
                    Prepares a whole library, four photos at a time, keeping its folders.
                find ~/DCIM -name '*.JPG' -print0 | prep-photo -0 --files-from - --base ~/DCIM --skip-existing
                    A list on standard input; run it again after a stop to finish the job.
                prep-photo --json --no-display --thumb-edge 256 *.jpg > photos.jsonl
                    Thumbnails only, with one line of JSON per photo for a script.
                """),
        ]
    ).rendered

    enum Action {
        case run(CommandLineOptions)
        case showHelp
        case showVersion
    }

    static func parse(_ arguments: [CommandLineArgument]) throws(UsageError) -> Action {
        let parsed = try ArgumentParser(options: options).parse(arguments)
        if parsed.has(Options.help) { return .showHelp }
        if parsed.has(Options.version) { return .showVersion }
        var options = CommandLineOptions()
        if let out = parsed.value(Options.out) {
            guard !out.bytes.isEmpty else { throw parsed.invalid(Options.out, "it must not be empty") }
            options.outputFolder = BytePath(out)
        }
        if let base = parsed.value(Options.base) {
            guard !base.bytes.isEmpty else { throw parsed.invalid(Options.base, "it must not be empty") }
            options.base = BytePath(base)
        }
        options.isRecursive = parsed.has(Options.recursive)
        if let shard = try parsed.string(Options.shard) {
            guard let parsedShard = Shard(shard) else {
                throw parsed.invalid(
                    Options.shard,
                    "it must be <i>/<n>, a shard from 0 to n-1 of n shards (n at most \(Shard.largestCount))")
            }
            options.shard = parsedShard
        }
        options.fileLists = parsed.values(Options.filesFrom).map(BytePath.init)
        if parsed.has(Options.nullSeparated) {
            guard !options.fileLists.isEmpty else {
                let spelled = Options.nullSeparated.spelled(short: parsed.last(Options.nullSeparated)!.isShort)
                throw UsageError(
                    "'\(spelled)' says that --files-from is NUL-separated, but no '--files-from <file>' is given")
            }
            options.listSeparator = 0
        }
        try exclusive(parsed, Options.skipExisting, Options.overwrite)
        try exclusive(parsed, Options.quiet, Options.verbose)
        if parsed.has(Options.skipExisting) { options.existingCopies = .skipFinished }
        if parsed.has(Options.overwrite) { options.existingCopies = .replace }
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = try parsed.integer(Options.maxEdge, in: 1...65535) ?? configuration.maxEdge
        configuration.displayEdge = try parsed.integer(Options.displayEdge, in: 1...65535) ?? configuration.displayEdge
        configuration.thumbnailEdge =
            try parsed.integer(Options.thumbEdge, in: 1...65535) ?? configuration.thumbnailEdge
        configuration.quality = try parsed.integer(Options.quality, in: 1...100) ?? configuration.quality
        if parsed.has(Options.noDisplay) { configuration.displayEdge = nil }
        if parsed.has(Options.noThumb) { configuration.thumbnailEdge = nil }
        if parsed.has(Options.noGainMap) { configuration.carriesGainMap = false }
        try exclusive(parsed, Options.refuseIncomplete, Options.acceptIncomplete)
        configuration.acceptsIncompleteData = !parsed.has(Options.refuseIncomplete)
        configuration.maxPixels = try parsed.integer(Options.maxPixels, in: 1...Int.max) ?? configuration.maxPixels
        if parsed.has(Options.fast) { configuration.dctScaleTolerance = 0.03 }
        if let background = try parsed.string(Options.background) {
            guard let color = PhotoPreparer.BackgroundColor(hexadecimal: background) else {
                throw parsed.invalid(Options.background, "it must be six hexadecimal digits, RRGGBB (FFFFFF is white)")
            }
            configuration.background = color
        }
        options.configuration = configuration
        options.jobs = try parsed.integer(Options.jobs, in: 1...1024) ?? options.jobs
        options.emitsJSON = parsed.has(Options.json)
        options.isQuiet = parsed.has(Options.quiet)
        options.isVerbose = parsed.has(Options.verbose)
        options.inputs = parsed.arguments.map(BytePath.init)
        guard !options.inputs.isEmpty || !options.fileLists.isEmpty else {
            throw UsageError("Missing expected argument '<photo-or-folder> ...'")
        }
        return .run(options)
    }

    private static func exclusive(_ parsed: ParsedArguments, _ first: Option, _ second: Option) throws(UsageError) {
        guard parsed.has(first), parsed.has(second) else { return }
        throw UsageError("'--\(first.name)' and '--\(second.name)' cannot be used together")
    }
}
