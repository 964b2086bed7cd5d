import ImagePrep

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the user asked for on the command line.
struct CommandLineOptions {
    var inputs: [String] = []
    var outputFolder = "prepared"
    var configuration = PhotoPreparer.Configuration()
    var jobs = ProcessInfo.processInfo.activeProcessorCount
    var emitsJSON = false

    static let version = "prep-photo 0.1.0"

    static let usageLine = "prep-photo [--out <folder>] [options] <photo-or-folder> ..."
    static let usage = "Usage: \(usageLine)"

    static let help = """
        OVERVIEW: Prepare JPEG photos for upload: an upload copy with the original EXIF, a stripped
        upright display copy and a thumbnail, plus the capture time and place.

        USAGE: \(usageLine)

        ARGUMENTS:
          <photo-or-folder>       JPEG files, or folders whose image files (.jpg, .jpeg, .png, .heic,
                                  ...) are all prepared; other files in a folder are skipped.

        OUTPUT:
          For each photo NAME.jpg the output folder gets:
            NAME.jpg              upload copy: long edge at most --max-edge, with the original's
                                  EXIF (GPS included), ICC profile and comment
            NAME.display.jpg      display copy: upright, sRGB, only the comment kept
            NAME.thumb.jpg        thumbnail: upright, sRGB, only the comment kept
          Inputs are never overwritten, and every file appears complete or not at all.

        OPTIONS:
          --out <folder>          Where the copies go. (default: ./prepared)
          --max-edge <pixels>     Longest edge of the upload copy. (default: 2048)
          --display-edge <pixels> Longest edge of the display copy. (default: 2048)
          --thumb-edge <pixels>   Longest edge of the thumbnail. (default: 400)
          --quality <1-100>       JPEG quality of every copy. (default: 85)
          --no-display            Do not write display copies.
          --no-thumb              Do not write thumbnails.
          --jobs <count>          Photos prepared at once. (default: one per core, \(ProcessInfo.processInfo.activeProcessorCount) here)
          --json                  Print one JSON object per input on stdout, in input order.
          --accept-incomplete     Prepare truncated or damaged photos whose missing pixels
                                  libjpeg-turbo fills in grey, with a warning, instead of
                                  refusing them.
          --max-pixels <count>    Refuse photos with more pixels than this. (default: 100000000)
          --fast                  Speed mode: when a 1/2, 1/4 or 1/8 decode lands at most 3%
                                  below --max-edge (2016 for 2048), keep that size and skip
                                  the resample.
          --version               Show the version.
          -h, --help              Show this help.

        EXIT STATUS:
          0 when every photo was prepared, 1 when some failed, 2 for a usage error.

        EXAMPLES:
          prep-photo IMG_1025.jpg
              Writes prepared/IMG_1025.jpg, .display.jpg and .thumb.jpg.
          prep-photo --out ~/upload --jobs 4 ~/DCIM/100APPLE
              Prepares a whole folder, four photos at a time.
          prep-photo --json --no-display --thumb-edge 256 *.jpg > photos.jsonl
              Thumbnails only, with one line of JSON per photo for a script.
        """

    /// A usage error, worded as swift-argument-parser words them.
    struct UsageError: Error {
        let message: String
    }

    enum Action {
        case run(CommandLineOptions)
        case showHelp
        case showVersion
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        var options = CommandLineOptions()
        var remaining = arguments[...]
        var onlyInputsFollow = false
        while let argument = remaining.popFirst() {
            if onlyInputsFollow || !argument.hasPrefix("-") || argument == "-" {
                options.inputs.append(argument)
                continue
            }
            func value(for name: String) throws(UsageError) -> String {
                // An option in a value's place means the value was forgotten (`--out --json`);
                // a folder that really starts with a dash can be written `./-name`.
                guard let value = remaining.first, !value.hasPrefix("-") || value == "-" else {
                    throw UsageError(message: "Missing value for '\(name) <\(placeholder(name))>'")
                }
                remaining.removeFirst()
                return value
            }
            func integer(for name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
                let text = try value(for: name)
                guard let number = Int(text), range.contains(number) else {
                    let bounds =
                        range.upperBound == Int.max
                        ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
                    throw UsageError(
                        message:
                            "The value '\(text)' is invalid for '\(name) <\(placeholder(name))>': it must be a whole number \(bounds)"
                    )
                }
                return number
            }
            switch argument {
            case "-h", "--help": return .showHelp
            case "--version": return .showVersion
            case "--": onlyInputsFollow = true
            case "--out": options.outputFolder = try value(for: argument)
            case "--max-edge": options.configuration.maxEdge = try integer(for: argument, in: 1...65535)
            case "--display-edge": options.configuration.displayEdge = try integer(for: argument, in: 1...65535)
            case "--thumb-edge": options.configuration.thumbnailEdge = try integer(for: argument, in: 1...65535)
            case "--quality": options.configuration.quality = try integer(for: argument, in: 1...100)
            case "--no-display": options.configuration.displayEdge = nil
            case "--no-thumb": options.configuration.thumbnailEdge = nil
            case "--jobs": options.jobs = try integer(for: argument, in: 1...1024)
            case "--json": options.emitsJSON = true
            case "--accept-incomplete": options.configuration.acceptsIncompleteData = true
            case "--max-pixels": options.configuration.maxPixels = try integer(for: argument, in: 1...Int.max)
            case "--fast": options.configuration.dctScaleTolerance = 0.03
            default: throw UsageError(message: "Unknown option '\(argument)'")
            }
        }
        guard !options.inputs.isEmpty else {
            throw UsageError(message: "Missing expected argument '<photo-or-folder> ...'")
        }
        return .run(options)
    }

    private static func placeholder(_ option: String) -> String {
        switch option {
        case "--out": "folder"
        case "--quality": "1-100"
        case "--jobs", "--max-pixels": "count"
        default: "pixels"
        }
    }
}
