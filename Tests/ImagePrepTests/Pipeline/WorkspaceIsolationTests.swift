import Foundation
import Testing

@testable import ImagePrep

/// A photo's copies never depend on what was prepared before it in the same workspace: a
/// damaged photo never shows the previous photo's pixels.
@Suite("A photo prepared after another is the photo prepared alone")
struct WorkspaceIsolationTests {
    /// The outcome of one preparation in a form that compares whole: the copies' bytes and
    /// warnings, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case photo(upload: Data, display: Data?, thumbnail: Data?, warnings: [PhotoWarning])
        case refused(ImagePrepError)

        init(_ preparer: PhotoPreparer, _ data: Data, name: String, workspace: PreparationWorkspace) {
            do {
                let photo = try preparer.prepareBlocking(data, name: name, workspace: workspace)
                self = .photo(
                    upload: photo.upload.data, display: photo.display?.data, thumbnail: photo.thumbnail?.data,
                    warnings: photo.warnings)
            } catch {
                self = .refused(error)
            }
        }

        var description: String {
            switch self {
            case .photo(let upload, _, _, let warnings): "a photo (\(upload.count) bytes, warnings \(warnings))"
            case .refused(let error): "refused: \(error)"
            }
        }
    }

    /// The issue's file: `corpus/progressive.jpg` with 5 junk bytes before its second SOS and
    /// the length of its fourth SOS set to 3. libjpeg warns of the junk, then stops at the
    /// length with a fatal error, which TurboJPEG 2.1 reports as a warning; the decode wrote
    /// no row.
    static func damagedProgressive() throws -> Data {
        var bytes = [UInt8](try Fixtures.data("corpus/progressive.jpg"))
        let scans = JPEGBytes.startsOfScan(in: bytes)
        try #require(scans.count >= 4, "progressive.jpg has \(scans.count) scans")
        bytes[scans[3] + 2] = 0x00
        bytes[scans[3] + 3] = 0x03
        bytes.insert(contentsOf: [0x4A, 0x55, 0x4E, 0x4B, 0x21], at: scans[1])
        return Data(bytes)
    }

    static func preparer(acceptingIncompleteData: Bool) throws -> PhotoPreparer {
        var configuration = PhotoPreparer.Configuration()
        configuration.acceptsIncompleteData = acceptingIncompleteData
        return try PhotoPreparer(configuration: configuration)
    }

    @Test(
        "a damaged photo after a good one in the same workspace is what it is alone: refused, never another photo's pixels",
        arguments: [false, true])
    func damagedAfterGood(acceptingIncompleteData: Bool) throws {
        let preparer = try Self.preparer(acceptingIncompleteData: acceptingIncompleteData)
        let damaged = try Self.damagedProgressive()
        let workspace = PreparationWorkspace()
        // A 900x600 photo leaves its pixels in every plane the 300x450 damaged one would use.
        let good = Outcome(
            preparer, try Fixtures.data("corpus/orientation-landscape-1.jpg"), name: "good.jpg", workspace: workspace)
        guard case .photo = good else {
            Issue.record("the good photo was \(good)")
            return
        }
        let afterGood = Outcome(preparer, damaged, name: "damaged.jpg", workspace: workspace)
        let alone = Outcome(preparer, damaged, name: "damaged.jpg", workspace: PreparationWorkspace())
        #expect(afterGood == alone, "after a good photo: \(afterGood); alone: \(alone)")
        // libjpeg's fatal "Bogus marker length", in our words, whatever TurboJPEG's flag said.
        #expect(
            alone
                == .refused(.corruptJPEG(file: "damaged.jpg", detail: "a segment's length does not fit what it holds")))
    }

    /// Pairs of a photo and the one after it: damaged files that are accepted (libjpeg filled
    /// the missing part grey), smaller photos after bigger ones, every decode path (planar 4:2:0,
    /// 4:2:2, gray, CMYK through interleaved pixels).
    static let sequences: [[String]] = [
        ["corpus/orientation-landscape-1.jpg", "corpus/truncated-progressive.jpg"],
        ["corpus/orientation-landscape-1.jpg", "decode/corrupt-data-segment.jpg"],
        ["corpus/orientation-landscape-1.jpg", "decode/corrupt-data-extraneous-before-eoi.jpg"],
        ["corpus/ycck-adobe-pillow.jpg", "corpus/cmyk-adobe-no-icc.jpg", "corpus/truncated-progressive.jpg"],
        ["corpus/grayscale-gray-gamma-icc.jpg", "decode/gray-224x150.jpg", "decode/ycc422-odd-223x149.jpg"],
        ["corpus/truncated-baseline-2725x2225.jpg", "decode/ycc444-odd-223x149.jpg"],
    ]

    @Test(
        "every photo of a sequence in one workspace is what it is alone, damaged or not, incomplete data accepted or not",
        arguments: sequences, [false, true])
    func sequence(paths: [String], acceptingIncompleteData: Bool) throws {
        let preparer = try Self.preparer(acceptingIncompleteData: acceptingIncompleteData)
        let workspace = PreparationWorkspace()
        for path in paths {
            let data = try Fixtures.data(path)
            let inSequence = Outcome(preparer, data, name: path, workspace: workspace)
            let alone = Outcome(preparer, data, name: path, workspace: PreparationWorkspace())
            #expect(inSequence == alone, "\(path): in the sequence \(inSequence); alone \(alone)")
        }
    }

    /// `time-offset-gps-exiftool.heic` with a byte of its `hvcC` and one of its coded data
    /// flipped (fuzz mutation 1732 of `PREP_FUZZ_SEED=20261201`): libde265 decodes it, leaving
    /// part of its picture as malloc gave it. In a `prep-photo` batch it came out differently
    /// each run, after other photos, until malloc was made to fill fresh memory (`FreshMemory`).
    static func damagedHEIC() throws -> Data {
        var bytes = [UInt8](try Fixtures.data("heic/time-offset-gps-exiftool.heic"))
        bytes[297] ^= 230
        bytes[2237] ^= 37
        return Data(bytes)
    }

    @Test("a damaged HEIC that libde265 leaves partly unwritten is the same after other photos as alone")
    func damagedHEICAfterOthers() throws {
        // Prepared with a warning naming the damage, as by default: refused, it would prove nothing.
        let preparer = try Self.preparer(acceptingIncompleteData: true)
        let damaged = try Self.damagedHEIC()
        let alone = Outcome(preparer, damaged, name: "damaged.heic", workspace: PreparationWorkspace())
        guard case .photo = alone else {
            Issue.record("the damaged HEIC was \(alone)")
            return
        }
        for others in [
            ["heic/time-offset-gps-exiftool.heic"], ["heic/display-p3-gps.heic", "heic/orientation-7.heic"],
            ["corpus/orientation-landscape-1.jpg", "heic/ten-bit.heic"],
        ] {
            let workspace = PreparationWorkspace()
            for path in others { _ = Outcome(preparer, try Fixtures.data(path), name: path, workspace: workspace) }
            let after = Outcome(preparer, damaged, name: "damaged.heic", workspace: workspace)
            #expect(after == alone, "after \(others)")
        }
    }

    /// LibRaw 0.20's Panasonic loader does not write all of this RW2's raw buffer (its data is
    /// not a Panasonic bitstream); FormatFuzzTests found its upload different after an ORF and a
    /// DNG than alone, until the raw decode ran under `FreshMemory`.
    @Test("a camera raw whose loader leaves its buffer partly unwritten is the same after other photos as alone")
    func partlyUnwrittenRawAfterOthers() throws {
        let preparer = try Self.preparer(acceptingIncompleteData: true)
        let raw = try Fixtures.data("formats/raw-rw2-panasonic-made.rw2")
        let alone = Outcome(preparer, raw, name: "raw.rw2", workspace: PreparationWorkspace())
        guard case .photo = alone else {
            Issue.record("the RW2 was \(alone)")
            return
        }
        for others in [
            ["formats/raw-orf-olympus-made.orf", "formats/dng-linear-raw-400x300.dng"],
            ["formats/dng-cfa-bayer-480x360.dng", "corpus/orientation-landscape-1.jpg"],
        ] {
            let workspace = PreparationWorkspace()
            for path in others { _ = Outcome(preparer, try Fixtures.data(path), name: path, workspace: workspace) }
            let after = Outcome(preparer, raw, name: "raw.rw2", workspace: workspace)
            #expect(after == alone, "after \(others)")
        }
    }

    @Test("rows a decoder did not write are filled with the documented grey in every plane")
    func unwrittenRowsAreGray() throws {
        let image = PlanarImage()
        try image.reshape(size: PixelSize(width: 6, height: 7), isGray: false, subsampling: .quarter, file: "test")
        for plane in image.planes { plane.pixels.update(repeating: 7, count: plane.width * plane.height) }
        image.fillRows(from: 4)
        #expect(image.planes[0].pixels[4 * 6 - 1] == 7 && image.planes[0].pixels[4 * 6] == 128)
        #expect((4 * 6..<8 * 6).allSatisfy { image.planes[0].pixels[$0] == PlanarImage.missingSample })
        for chroma in image.planes[1...] {
            #expect(chroma.pixels[2 * 3 - 1] == 7)
            #expect((2 * 3..<4 * 3).allSatisfy { chroma.pixels[$0] == PlanarImage.missingSample })
        }
        // A chroma row that covers a written image row keeps its samples.
        for plane in image.planes { plane.pixels.update(repeating: 7, count: plane.width * plane.height) }
        image.fillRows(from: 5)
        #expect(image.planes[0].pixels[5 * 6 - 1] == 7 && image.planes[0].pixels[5 * 6] == 128)
        #expect(image.planes[1].pixels[3 * 3 - 1] == 7 && image.planes[1].pixels[3 * 3] == 128)
        // From the image's last row on nothing changes: the rows past it are padding, the decoder's.
        for plane in image.planes { plane.pixels.update(repeating: 7, count: plane.width * plane.height) }
        image.fillRows(from: 7)
        #expect(image.planes[0].pixels[7 * 6] == 7 && image.planes[1].pixels[3 * 3] == 7)
    }
}

/// Finding markers in JPEG bytes, for tests that damage files on purpose.
enum JPEGBytes {
    /// The offsets of every SOS marker (FF DA) outside entropy-coded data.
    static func startsOfScan(in bytes: [UInt8]) -> [Int] {
        var found: [Int] = []
        var index = 2
        while index + 3 < bytes.count {
            guard bytes[index] == 0xFF, bytes[index + 1] != 0, bytes[index + 1] != 0xFF else {
                index += 1
                continue
            }
            let marker = bytes[index + 1]
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                index += 2
                continue
            }
            if marker == JPEGSegment.endOfImage { break }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == JPEGSegment.startOfScan { found.append(index) }
            // After a scan's header, its entropy-coded data runs to the next marker.
            index += 2 + max(length, 2)
        }
        return found
    }
}

/// A workspace shared by photos prepared at the same time, as a main-actor view model holds one
/// and passes it to each async prepare: each photo gets buffers of its own while another has the
/// kept ones, so every photo comes out as it does alone.
@Suite("One workspace shared by photos prepared at once")
struct SharedWorkspaceTests {
    @Test("eight photos prepared at once with one workspace are each the photo prepared alone")
    func concurrentPhotosShareOneWorkspace() async throws {
        let names = [
            "corpus/orientation-landscape-1.jpg", "corpus/cmyk-adobe-no-icc.jpg", "corpus/progressive.jpg",
            "heic/display-p3-gps.heic",
        ]
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 300
        let preparer = try PhotoPreparer(configuration: configuration)
        var alone: [String: Data] = [:]
        for name in names {
            alone[name] = try await preparer.prepare(Fixtures.data(name), name: name).upload.data
        }
        let shared = PreparationWorkspace()
        let together = try await withThrowingTaskGroup(of: (String, Data).self) { group in
            for round in 0..<8 {
                let name = names[round % names.count]
                let data = try Fixtures.data(name)
                group.addTask { (name, try await preparer.prepare(data, name: name, workspace: shared).upload.data) }
            }
            return try await group.reduce(into: [(String, Data)]()) { $0.append($1) }
        }
        #expect(together.count == 8)
        for (name, upload) in together {
            #expect(upload == alone[name], "\(name) prepared beside others differs from \(name) alone")
        }
        // The kept buffers came back: the next photo reuses them rather than allocating.
        #expect(shared.inspectKeptBuffers { _ in true } == true)
        #expect(shared.lastTimings.total > .zero)
    }

    @Test("the async form of prepare(_:name:) gives what the synchronous one gives")
    func asyncBytesFormMatches() async throws {
        let name = "corpus/orientation-landscape-1.jpg"
        let data = try Fixtures.data(name)
        let preparer = PhotoPreparer()
        // In an async context the bare call is the async form; a synchronous closure picks the other.
        let synchronous = try { () throws(ImagePrepError) in try preparer.prepareBlocking(data, name: name) }()
        let asynchronous = try await preparer.prepare(data, name: name)
        #expect(asynchronous.upload.data == synchronous.upload.data)
        #expect(asynchronous.metadata == synchronous.metadata)
        await #expect(throws: ImagePrepError.empty(file: "camera.jpg")) {
            try await preparer.prepare(Data(), name: "camera.jpg")
        }
    }
}
