import Foundation
import Testing

@testable import ImagePrep

/// The JPEG XL, JPEG 2000, Photoshop, DNG and camera raw (ORF, CR3, RAF) seeds damaged in
/// seeded, structure-aware ways (`FormatMutation`: sizes, offsets, counts and directory links at
/// their edges, a raw whose header lies about its size, a CR3's boxes and CMT directories, a
/// RAF's header offsets, files cut short), each prepared by `prep-photo` in a batch and
/// alone: the same copies byte for byte, or the same refusal. A crash or a hang fails the run, and
/// so does a batch whose peak resident memory (`/usr/bin/time`'s) passes `peakMemoryLimit`.
///
/// `PREP_FORMAT_FUZZ_MUTATIONS` (default 240) and `PREP_FUZZ_SEED` set the run, and
/// `PREP_FORMAT_FUZZ_ONLY` keeps the seeds whose name holds it (`raw-`, `dng-`, `jxl-`); a failure
/// names the seed file, the mutation's number and what it did.
@Suite("Fuzz: mutated JPEG XL, JPEG 2000, PSD, DNG and raw files in a batch are the same alone")
struct FormatFuzzTests {
    static let allSeedFiles = [
        "formats/jxl-codestream-naked-bicycles-conformance.jxl",
        "formats/jxl-container-exif-xmp-box-1x1-libjxl-testdata.jxl",
        "formats/j2k-codestream-named-jp2-relax-sharp.jp2", "formats/jp2-restricted-icc-exifr.jp2",
        "formats/jp2-tileparts-relax-sharp.jp2", "formats/j2k-codestream-16bit-pillow.j2k",
        "formats/psd-rgb-layers-composite-hopper-pillow.psd", "formats/psd-rgb-extra-alpha-channels-twelvemonkeys.psd",
        "formats/dng-linear-raw-400x300.dng", "formats/dng-preview-2048.dng", "formats/dng-cfa-bayer-480x360.dng",
        // Not the RW2: LibRaw 0.20's Panasonic loader gives it pixels that depend on what the
        // process decoded before (a batch's upload differs from the photo's alone), a known gap in
        // docs/formats-jxl-j2k-psd-raw.md that this harness found.
        "formats/raw-orf-olympus-made.orf", "formats/raw-cr3-canon-made.cr3", "formats/raw-raf-fujifilm-made.raf",
    ]
    static let environment = ProcessInfo.processInfo.environment
    static let seedFiles = allSeedFiles.filter { file in
        environment["PREP_FORMAT_FUZZ_ONLY"].map { file.contains($0) } ?? true
    }
    static let mutationCount = Int(environment["PREP_FORMAT_FUZZ_MUTATIONS"] ?? "") ?? 240
    static let seed = environment["PREP_FUZZ_SEED"] ?? "imageprep"
    static let batchSize = 300
    static let batches: [Range<Int>] = stride(from: 0, to: mutationCount, by: batchSize).map {
        $0..<min($0 + batchSize, mutationCount)
    }
    static let peakMemoryLimit = 400 << 20
    /// The DNG preview is 2048 wide: an upload edge below it takes the preview, as a camera's would.
    static let arguments = [
        "--json", "--jobs", "1", "--max-edge", "32", "--display-edge", "24", "--thumb-edge", "16", "--max-pixels",
        "25000000",
    ]

    struct Case {
        let number: Int
        let seedFile: String
        let mutation: FormatMutation
        let acceptsIncompleteData: Bool
        let bytes: Data

        var input: String {
            let digits = String(number)
            return (acceptsIncompleteData ? "accept/" : "strict/")
                + String(repeating: "0", count: max(0, 7 - digits.count))
                + digits + ".jpg"
        }

        var label: String {
            "\(seedFile) #\(number) (\(mutation)\(acceptsIncompleteData ? ", incomplete data accepted" : ""), "
                + "PREP_FUZZ_SEED=\(FormatFuzzTests.seed))"
        }

        init(number: Int, originals: [String: [UInt8]]) {
            var random = SeededGenerator(seed: "formats/\(FormatFuzzTests.seed)/\(number)")
            seedFile = FormatFuzzTests.seedFiles[number % FormatFuzzTests.seedFiles.count]
            let original = originals[seedFile]!
            mutation = FormatMutation.random(for: original, using: &random)
            acceptsIncompleteData = Bool.random(using: &random)
            bytes = Data(mutation.apply(to: original))
            self.number = number
        }
    }

    @Test(
        "each mutation gives the same copies or the same error in a batch and alone, within 400 MB", arguments: batches)
    func batch(numbers: Range<Int>) throws {
        var originals: [String: [UInt8]] = [:]
        for file in Self.seedFiles { originals[file] = [UInt8](try Data(contentsOf: Fixtures.url(file))) }
        let cases = numbers.map { Case(number: $0, originals: originals) }
        try TemporaryFolder.with { folder in
            try folder.makeFolder("accept")
            try folder.makeFolder("strict")
            for item in cases { try item.bytes.write(to: folder.url.appendingPathComponent(item.input)) }
            var outcomes = (photos: 0, errors: 0)
            for accepting in [false, true] {
                let mode = accepting ? "accept" : "strict"
                let result = try PrepPhotoRunner.run(
                    ["/usr/bin/time", "-f", "peak-kilobytes %M", PrepPhotoRunner.executable.path] + Self.arguments
                        + (accepting ? [] : ["--refuse-incomplete"]) + ["--out", "out-\(mode)", mode],
                    in: folder.url, launch: .command, timeLimit: .seconds(600))
                try #require(!result.timedOut && (result.status == 0 || result.status == 1), "prep-photo: \(result)")
                var peak = 0
                for line in result.standardError.split(separator: "\n") {
                    if line.hasPrefix("peak-kilobytes ") {
                        peak = Int(line.dropFirst("peak-kilobytes ".count)) ?? 0
                    } else if line.hasPrefix("./lib/jxl/") {
                        // libjxl 0.7 as Debian builds it prints its failures to stderr itself,
                        // with no handle to stop it (a known gap, in docs/formats-jxl-j2k-psd-raw.md).
                        continue
                    } else if !["prep-photo: ", "Prepared ", "Left out: ", "Command exited with non-zero status"]
                        .contains(where: line.hasPrefix)
                    {
                        Issue.record("a line on stderr that is not prep-photo's: \(line)")
                    }
                }
                #expect(peak > 0 && peak * 1024 <= Self.peakMemoryLimit, "peak resident memory \(peak) KB")
                let batchCases = cases.filter { $0.acceptsIncompleteData == accepting }
                let reports = try result.reports()
                try #require(reports.map(\.input) == batchCases.map(\.input), "one report per input, in order")
                for (item, report) in zip(batchCases, reports) {
                    if try Self.compare(item, report, outputs: folder.url.appendingPathComponent("out-\(mode)")) {
                        outcomes.photos += 1
                    } else {
                        outcomes.errors += 1
                    }
                }
            }
            #expect(folder.temporaryFiles().isEmpty, "left behind: \(folder.temporaryFiles())")
            #expect(
                outcomes.errors > cases.count / 20 && outcomes.photos > cases.count / 20,
                "\(outcomes) of \(cases.count)")
        }
    }

    /// Whether the case was a photo; records where the batch and the photo alone differ.
    static func compare(_ item: Case, _ report: PhotoReport, outputs: URL) throws -> Bool {
        let preparer = FuzzTests.preparer(acceptingIncompleteData: item.acceptsIncompleteData)
        switch Result(catching: { () throws(ImagePrepError) in
            try preparer.prepareBlocking(item.bytes, name: item.input)
        }) {
        case .failure(let error):
            #expect(!report.ok, "\(item.label): refused alone (\(error)) but prepared in the batch")
            #expect(report.error == error.description && report.code == error.code, "\(item.label)")
            if case .encodingFailed = error { Issue.record("\(item.label): \(error)") }
            return false
        case .success(let photo):
            guard report.ok else {
                Issue.record("\(item.label): prepared alone but refused in the batch: \(report.error ?? "")")
                return true
            }
            #expect(report.warnings == photo.warnings.map(\.message), "\(item.label)")
            let stem = (item.input as NSString).lastPathComponent.replacingOccurrences(of: ".jpg", with: "")
            for (suffix, copy) in [
                (".jpg", photo.upload), (".display.jpg", photo.display), (".thumb.jpg", photo.thumbnail),
            ] {
                let written = try? Data(contentsOf: outputs.appendingPathComponent(stem + suffix))
                #expect(written == copy?.data, "\(item.label): \(stem)\(suffix) differs from the photo prepared alone")
            }
            #expect(max(photo.upload.size.width, photo.upload.size.height) <= 32, "\(item.label)")
            return true
        }
    }
}
