import Foundation
import Testing

@testable import ImagePrep

/// Every warning message has one form: a clause that reads after a colon, as prep-photo and
/// outbox print it (`prep-photo: warning: 'a.jpg': MESSAGE`), so lower-case unless it starts with
/// a name (an EXIF tag, an acronym, a library), with a lower-case letter after each colon inside
/// it too, and one full stop at the end.
@Suite("Warning sentences")
struct WarningFormTests {
    /// Names a message may start with, or follow a colon with, in their own case: EXIF tags of one
    /// capital, and libraries.
    static let names: Set<String> = ["Orientation", "LittleCMS"]

    /// What is wrong with the form of `message`, or nil.
    static func formProblem(_ message: String) -> String? {
        guard message.hasSuffix("."), !message.hasSuffix(".."), !message.hasSuffix(" .") else {
            return "does not end with one full stop"
        }
        guard !message.contains("\n") else { return "is more than one line" }
        let starts = [message[...]] + message.ranges(of: ": ").map { message[$0.upperBound...] }
        for start in starts {
            let word = start.prefix { !$0.isWhitespace && $0 != "'" && $0 != "(" }
            guard let first = word.first, first.isUppercase else { continue }
            // A name: an acronym or a tag of several capitals (EXIF, GPSAltitude, IFD0), or a known one.
            if word.dropFirst().contains(where: \.isUppercase) || word.dropFirst().contains(where: \.isNumber) {
                continue
            }
            if names.contains(String(word)) { continue }
            return "has a capital after a colon or at its start ('\(word)')"
        }
        return nil
    }

    @Test("the form's own check refuses what it should")
    func theCheckRefusesWrongForms() {
        #expect(Self.formProblem("the ICC profile is odd; it is ignored") != nil)
        #expect(Self.formProblem("The ICC profile is odd.") != nil)
        #expect(Self.formProblem("the gain map is left out: Its index is bad.") != nil)
        #expect(Self.formProblem("GPSAltitude has no GPSAltitudeRef, so the altitude is left out.") == nil)
        #expect(Self.formProblem("IFD0 had a damaged entry.") == nil)
        #expect(Self.formProblem("libjpeg-turbo met a problem that lost no pixels: 2 bytes.") == nil)
    }

    /// Every photo under Tests/Fixtures, prepared (incomplete data accepted) and read for its
    /// metadata alone, with the warnings they give.
    static func fixtureWarnings() -> [(photo: String, warning: PhotoWarning)] {
        let root = Fixtures.root.standardizedFileURL.path + "/"
        let paths = ((FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []).filter {
            ($0.hasSuffix(".jpg") || $0.hasSuffix(".heic") || $0.hasSuffix(".avif")) && !$0.hasPrefix("stores/")
                && !$0.hasPrefix("heic/large/")  // large on purpose: CancellationTests
        }.sorted()
        var configuration = PhotoPreparer.Configuration()
        configuration.acceptsIncompleteData = true
        configuration.displayEdge = nil
        configuration.thumbnailEdge = 64
        let preparer = (try? PhotoPreparer(configuration: configuration)) ?? PhotoPreparer()
        var found: [(String, PhotoWarning)] = []
        for path in paths {
            guard let data = try? Fixtures.data(path) else { continue }
            let prepared = (try? preparer.prepareBlocking(data, name: path))?.warnings ?? []
            let read = PhotoMetadata.read(from: data).warnings
            found += (prepared + read).map { (path, $0) }
        }
        return found
    }

    /// Warnings that no fixture gives, made by the code that makes them.
    static let constructed: [PhotoWarning] = {
        let size = PixelSize(width: 100, height: 100)
        var warnings: [PhotoWarning] = [
            HEIFMetadata.unreadableItemWarning, HEIFMetadata.encodedItemWarning,
            LibjpegMessage.scanLimit.warning,
        ]
        warnings += [
            GainMapProblem.malformedIndex("its first entry is short"), .tooManyImages(9), .noGainMapItem, .pastEnd,
            .overlapsPrimary, .notJPEG, .tooLarge(size, base: size), .metadata("its XMP is unreadable"),
            .undecodable("libheif cannot decode it"), .headroom("the photo's EXIF has no maker note"),
            .notGainMapType, .noGainMapImage, .extendedXMP("its chunks do not add up"), .unlistedGainMap,
            .mismatchedAspect(size, base: size),
        ].map(\.warning)
        // The colour warnings: an nclx curve for HDR, primaries no one knows, a profile LittleCMS
        // cannot read, for an RGB and for a CMYK photo.
        let hdr = NCLXColor(
            primaries: 9, transfer: 16, matrix: 9, isFullRange: true, red: (0.708, 0.292), green: (0.17, 0.797),
            blue: (0.131, 0.046), white: (0.3127, 0.329))
        var unknownPrimaries = hdr
        unknownPrimaries.transfer = 13
        unknownPrimaries.primaries = 99
        unknownPrimaries.red = (0, 0)
        warnings += [ICCProfile.make(describing: hdr).1, ICCProfile.make(describing: unknownPrimaries).1].compactMap {
            $0
        }
        let garbage = ICCProfile(bytes: Array(repeating: 7, count: 200))
        warnings += [ColorConverter.displayConversion(for: garbage, isGray: false).1].compactMap { $0 }
        var cmyk: [UInt8] = [10, 20, 30, 40]
        var rgb: [UInt8] = [0, 0, 0]
        warnings += [
            ColorConverter.convertCMYK(&cmyk, into: &rgb, count: 1, isInverted: false, profile: garbage)
        ].compactMap { $0 }
        for directory in EXIFDirectory.allCases {
            for tag in EXIFSanitizer.pointers.keys.sorted() + [EXIFSanitizer.jpegInterchangeFormat] {
                for problem in [EXIFSanitizer.Problem.pastEnd, .intoHeader, .notAnOffset] {
                    warnings.append(EXIFSanitizer.Repair(directory: directory, tag: tag, problem: problem).warning)
                    warnings.append(
                        EXIFSanitizer.Repair(directory: directory, tag: tag, problem: problem, count: 3).warning)
                }
            }
        }
        return warnings
    }()

    @Test("every warning the fixtures give and every one made here is in the one form, and every kind is met")
    func everyWarningIsInTheOneForm() {
        let fromFixtures = Self.fixtureWarnings()
        let all = fromFixtures + Self.constructed.map { ("constructed", $0) }
        var problems: [String] = []
        var seen = Set<String>()
        for (photo, warning) in all where seen.insert(warning.message).inserted {
            if let problem = Self.formProblem(warning.message) {
                problems.append("\(photo): '\(warning.message)' \(problem)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let kinds = Set(all.map(\.warning.kind))
        #expect(
            kinds == [.imageData, .incompleteImageData, .metadata, .colorProfile, .gainMap],
            "kinds met: \(kinds.map(\.rawValue).sorted())")
        #expect(seen.count > 40, "\(seen.count) different messages")
    }

    /// The package's sources, beside this file's folder.
    static let sources = Repository.url("Sources/ImagePrep")

    @Test("every message written in the sources starts in the one form and ends with a full stop")
    func everyMessageInTheSourcesIsInTheOneForm() throws {
        let files = (FileManager.default.enumerator(atPath: Self.sources.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        try #require(files.count > 20)
        var problems: [String] = []
        var calls = 0
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for call in text.ranges(of: "PhotoWarning(\n") + text.ranges(of: "PhotoWarning(.") {
                let lineStart =
                    text[..<call.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
                if text[lineStart..<call.lowerBound].trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                // The call's string literals: from the kind to the first line that closes it.
                let rest = text[call.upperBound...]
                let end = rest.range(of: ")\n")?.lowerBound ?? rest.endIndex
                let literals = rest[..<end].split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                    .filter { $0.offset % 2 == 1 }.map(\.element)
                guard let first = literals.first, let last = literals.last else { continue }
                calls += 1
                let line = text[..<call.lowerBound].filter { $0 == "\n" }.count + 1
                if let firstCharacter = first.first, firstCharacter.isUppercase,
                    Self.formProblem(String(first.prefix { $0 != " " }) + " x.") != nil
                {
                    problems.append("\(file):\(line) starts '\(first.prefix(30))'")
                }
                if !last.hasSuffix(".") && !last.hasSuffix(".\\n") {
                    problems.append("\(file):\(line) ends '…\(last.suffix(30))'")
                }
            }
        }
        #expect(calls > 25, "\(calls) PhotoWarning calls read")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
