import Foundation
import Testing

@testable import ImagePrep

/// Each kind of bad input the issue lists gets its own `ImagePrepError` case, and every message
/// names the file.
@Suite("Bad input is refused with a typed error that names the file and the cause")
struct BadInputTests {
    /// The error that preparing the fixture at `path` must throw, after checking that it names
    /// the file both in `file` and in its message.
    static func refusal(
        _ path: String, configuration: PhotoPreparer.Configuration = .init(),
        workspace: PreparationWorkspace = PreparationWorkspace(), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ImagePrepError {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let data = try Fixtures.data(path)
        let error = try #require(throws: ImagePrepError.self, sourceLocation: sourceLocation) {
            try PhotoPreparer(configuration: configuration).prepareBlocking(data, name: name, workspace: workspace)
        }
        #expect(error.file == name, sourceLocation: sourceLocation)
        #expect(error.description.contains("'\(name)'"), "\(error)", sourceLocation: sourceLocation)
        return error
    }

    /// What an `.incompleteImageData` error says was wrong; nil, with an issue recorded, for any
    /// other error.
    static func incompleteDataDetail(_ error: ImagePrepError, sourceLocation: SourceLocation = #_sourceLocation)
        -> String?
    {
        guard case .incompleteImageData(_, let detail) = error else {
            Issue.record("expected .incompleteImageData, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        return detail
    }

    static var acceptingIncompleteData: PhotoPreparer.Configuration {
        var configuration = PhotoPreparer.Configuration()
        configuration.acceptsIncompleteData = true
        return configuration
    }

    static var refusingIncompleteData: PhotoPreparer.Configuration {
        var configuration = PhotoPreparer.Configuration()
        configuration.acceptsIncompleteData = false
        return configuration
    }

    /// Prepares the fixture and checks that every copy is a JPEG libjpeg-turbo decodes cleanly.
    static func prepared(_ path: String, configuration: PhotoPreparer.Configuration = .init()) throws -> PreparedPhoto {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(Fixtures.data(path), name: name)
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            let decoded = try DecodedJPEG(copy.data)
            #expect(decoded.size == copy.size && decoded.warnings.isEmpty)
        }
        return photo
    }

    // MARK: Not a JPEG

    @Test("no bytes at all is .empty")
    func emptyData() throws {
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(Data(), name: "upload-42")
        }
        #expect(error == .empty(file: "upload-42"))
        #expect(error.description.contains("'upload-42'"))
    }

    @Test("an empty file is .empty, named by its path")
    func emptyFile() throws {
        let url = Fixtures.url("decode/empty.jpg")
        let error = try #require(throws: ImagePrepError.self) { try PhotoPreparer().prepareBlocking(contentsOf: url) }
        #expect(error == .empty(file: url.path))
        #expect(error.description.contains("'\(url.path)'"))
    }

    @Test("a file that is not there is .unreadable")
    func missingFile() throws {
        let url = Fixtures.url("decode/no-such-file.jpg")
        let error = try #require(throws: ImagePrepError.self) { try PhotoPreparer().prepareBlocking(contentsOf: url) }
        guard case .unreadable(let file, let reason) = error else {
            Issue.record("expected .unreadable, got \(error)")
            return
        }
        #expect(file == url.path && !reason.isEmpty)
        #expect(error.description.contains("'\(url.path)'"))
    }

    @Test(
        "a text file is .unrecognizedFormat, saying what it looks like (a HEIC and a PNG are read)",
        arguments: [
            ("decode/not-a-jpeg.txt", "text")
        ])
    func unrecognizedFormat(path: String, looksLike: String) throws {
        let name = URL(fileURLWithPath: path).lastPathComponent
        #expect(try Self.refusal(path) == .unrecognizedFormat(file: name, detected: looksLike))
    }

    @Test("a FIFO named like a photo is refused at once as not a regular file, without waiting for a writer")
    func fifo() throws {
        try TemporaryFolder.with(label: "ImagePrepTests") { temporary in
            let folder = temporary.url
            let fifo = folder.appendingPathComponent("waiting.jpg")
            try #require(mkfifo(fifo.path, 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")
            // Should the open wait for a writer, one comes after five seconds and lets it go on: the
            // test then fails instead of hanging.
            let writer = FIFOWriter()
            Thread {
                sleep(5)
                writer.hasCome.withLock { $0 = true }
                let descriptor = open(fifo.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if descriptor >= 0 { close(descriptor) }
            }.start()
            let error = try #require(throws: ImagePrepError.self) {
                try PhotoPreparer().prepareBlocking(contentsOf: fifo)
            }
            let waited = writer.hasCome.withLock { $0 }
            #expect(!waited, "prepare(contentsOf:) waited for a writer")
            #expect(error == .unreadable(file: fifo.path, reason: "it is not a regular file but a named pipe (FIFO)"))
        }
    }

    /// Whether the FIFO test's late writer has come.
    final class FIFOWriter: Sendable {
        let hasCome = Locked(false)
    }

    @Test("a character device is refused as not a regular file")
    func characterDevice() throws {
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(contentsOf: URL(fileURLWithPath: "/dev/zero"))
        }
        #expect(error == .unreadable(file: "/dev/zero", reason: "it is not a regular file but a character device"))
        #expect(error.description == "'/dev/zero' could not be read: it is not a regular file but a character device.")
    }

    /// The first block device this process may open, if the machine has one (a loop device).
    static let openableBlockDevice: String? = ["/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1"].first {
        (path: String) in access(path, R_OK) == 0
    }

    @Test(
        "a block device is refused as not a regular file, in its own words",
        .enabled(if: openableBlockDevice != nil, "no block device this process may open"))
    func blockDevice() throws {
        let path = try #require(Self.openableBlockDevice)
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(error == .unreadable(file: path, reason: "it is not a regular file but a block device"))
    }

    /// A sparse file: a gigabyte and a byte on the books, no disk used. Before the bound, its size
    /// alone decided an allocation, and reading the zeros took seconds.
    @Test("a file larger than any photo (1 GiB) is refused by its size, before a byte is read")
    func fileLargerThanAnyPhoto() throws {
        try TemporaryFolder.with(label: "ImagePrepTests") { temporary in
            let folder = temporary.url
            let huge = folder.appendingPathComponent("huge.jpg")
            let descriptor = open(huge.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            try #require(descriptor >= 0)
            try #require(ftruncate(descriptor, off_t(PhotoBytes.largestFile + 1)) == 0)
            close(descriptor)
            let error = try #require(throws: ImagePrepError.self) {
                try PhotoPreparer().prepareBlocking(contentsOf: huge)
            }
            #expect(
                error
                    == .unreadable(file: huge.path, reason: "it is 1025 MB, more than the 1024 MB a photo file may be"))
            #expect(PhotoBytes.refusal(forSize: PhotoBytes.largestFile) == nil)
        }
    }

    @Test("a photo's bytes read into huge pages are the file's bytes, as many as were filled")
    func photoBytesHoldWhatWasFilled() throws {
        for capacity in [0, 3, 4 << 20] {
            let data = PhotoBytes.read(capacity: capacity, shortage: fatalError("no memory for \(capacity) bytes")) {
                buffer in
                for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 7) }
                return capacity / 2
            }
            #expect(data.count == capacity / 2)
            #expect(data.elementsEqual((0..<capacity / 2).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        }
    }

    /// Run in a child process, so that a trap (as these inputs once caused) fails one test
    /// instead of ending the whole run.
    @Test(
        "a file of one to three bytes that is not a JPEG is .unrecognizedFormat, without crashing",
        arguments: [
            [0x0A], [0xFF], [0x68, 0x69], [0x68, 0x69, 0x0A],
        ] as [[UInt8]])
    func tinyFilesThatAreNotJPEG(bytes: [UInt8]) async {
        await #expect(processExitsWith: .success) { [bytes] in
            let result = Result { () throws(ImagePrepError) in
                try PhotoPreparer().prepareBlocking(Data(bytes), name: "tiny")
            }
            guard case .failure(.unrecognizedFormat(file: "tiny", _)) = result else { exit(1) }
        }
    }

    // MARK: JPEGs libjpeg-turbo 2.x cannot decode

    @Test(
        "a 12-bit JPEG is .unsupportedJPEG, saying so (a lossless one: UnsupportedFormatTests)",
        arguments: [("corpus/12bit-precision-srgb2014.jpg", "12-bit")])
    func unsupported(path: String, reason expected: String) throws {
        let error = try Self.refusal(path)
        guard case .unsupportedJPEG(_, let reason) = error else {
            Issue.record("expected .unsupportedJPEG, got \(error)")
            return
        }
        #expect(reason.contains(expected))
    }

    @Test("a broken header (an APP1 longer than the file) is .corruptJPEG")
    func corruptHeader() throws {
        let error = try Self.refusal("corpus/corrupt-header.jpg")
        guard case .corruptJPEG = error else {
            Issue.record("expected .corruptJPEG, got \(error)")
            return
        }
    }

    // MARK: Decompression bombs

    @Test("a small file whose frame claims 60000x60000 is .tooManyPixels before anything is allocated")
    func pixelBomb() throws {
        let workspace = PreparationWorkspace()
        let error = try Self.refusal("decode/bomb-60000x60000.jpg", workspace: workspace)
        #expect(
            error
                == .tooManyPixels(
                    file: "bomb-60000x60000.jpg", size: PixelSize(width: 60000, height: 60000), limit: 210_000_000))
        // Refused from the header: no plane of the workspace was ever sized.
        let untouched = workspace.inspectKeptBuffers { buffers in
            buffers.images.allSatisfy { image in
                image.size == PixelSize(width: 0, height: 0)
                    && image.planes.allSatisfy { $0.width == 0 && $0.height == 0 }
            }
        }
        #expect(untouched == true)
    }

    @Test(
        "The default pixel limit takes the 200 MP photos phones take (16320x12240, 16384x12288) and refuses more than 210 million pixels"
    )
    func defaultLimitTakesPhonePhotos() throws {
        let run = PreparationContext(
            configuration: PhotoPreparer.Configuration(), workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false),
            file: "200mp.jpg")
        for size in [PixelSize(width: 16320, height: 12240), PixelSize(width: 16384, height: 12288)] {
            #expect(throws: Never.self) { try run.checkPixelLimit(size) }
        }
        let over = PixelSize(width: 15000, height: 14001)
        #expect(throws: ImagePrepError.tooManyPixels(file: "200mp.jpg", size: over, limit: 210_000_000)) {
            try run.checkPixelLimit(over)
        }
    }

    @Test("maxPixels is the limit: one pixel more than allowed is .tooManyPixels, exactly as many prepares")
    func configuredPixelLimit() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxPixels = 224 * 150 - 1
        #expect(
            try Self.refusal("decode/ycc420-224x150.jpg", configuration: configuration)
                == .tooManyPixels(
                    file: "ycc420-224x150.jpg", size: PixelSize(width: 224, height: 150), limit: 224 * 150 - 1))
        configuration.maxPixels = 224 * 150
        #expect(try Self.prepared("decode/ycc420-224x150.jpg", configuration: configuration).upload.size.width == 224)
    }

    @Test("a valid progressive JPEG with 568 scans is .tooManyScans, even when incomplete data is accepted")
    func tooManyScans() throws {
        for configuration in [Self.refusingIncompleteData, Self.acceptingIncompleteData] {
            let error = try Self.refusal("decode/progressive-568-scans.jpg", configuration: configuration)
            guard case .tooManyScans(_, let detail) = error else {
                Issue.record("expected .tooManyScans, got \(error)")
                continue
            }
            #expect(detail.contains("500"))
        }
    }

    @Test("the same progression cut to 500 scans, libjpeg-turbo's limit, prepares")
    func fiveHundredScans() throws {
        let photo = try Self.prepared("decode/progressive-500-scans.jpg")
        #expect(photo.upload.size == PixelSize(width: 16, height: 16) && photo.warnings.isEmpty)
    }

    @Test(
        "a refinement scan repeated 600 times is refused: its bad progression when refused, its scan count when accepted"
    )
    func repeatedRefinementScans() throws {
        let error = try Self.refusal(
            "decode/progressive-repeated-refinement.jpg", configuration: Self.refusingIncompleteData)
        #expect(
            Self.incompleteDataDetail(error) == "the progressive scans are not in an order that builds the picture")
        let accepted = try Self.refusal("decode/progressive-repeated-refinement.jpg")
        guard case .tooManyScans = accepted else {
            Issue.record("expected .tooManyScans, got \(accepted)")
            return
        }
    }

    // MARK: Missing or damaged pixels

    @Test(
        "a file cut short or with a damaged scan prepares by default with a warning that says how much is missing, and is .incompleteImageData when refused",
        arguments: [
            // libjpeg says "Premature end of JPEG file", "Corrupt JPEG data: premature end of data segment".
            // Pillow's decode of the baseline file is mid grey below row 48 (1-based): its data ends in
            // the band of 16 rows (4:2:0) that starts at row 33.
            (
                "corpus/truncated-baseline-2725x2225.jpg", "the file ends before its image data does",
                "the file ends before its image data does, within rows 33 to 48 of 2225: from there down, 99 % of the picture, it is missing and grey"
            ),
            (
                "corpus/truncated-progressive.jpg", "the file ends before its image data does",
                "the file ends in scan 10 of the progressive picture, so none of it is missing but all of it has less detail than it was made with"
            ),
            ("decode/corrupt-data-segment.jpg", "a scan's image data stops early", "a scan's image data stops early"),
        ])
    func incompleteData(path: String, cause: String, warned: String) throws {
        let error = try Self.refusal(path, configuration: Self.refusingIncompleteData)
        #expect(Self.incompleteDataDetail(error) == cause)

        let photo = try Self.prepared(path)
        let warning = try #require(photo.warnings.first { $0.kind == .incompleteImageData })
        #expect(warning.message == "part of the picture is missing or damaged and was filled in: \(warned).")
    }

    @Test(
        "a scan damaged so that libjpeg only warns of extraneous bytes before EOI is .incompleteImageData when refused")
    func damagedScanEndingInExtraneousBytes() throws {
        // 64 inverted bytes turn the lower 60% of the picture into garbage; libjpeg's only word on
        // it is "Corrupt JPEG data: 47 extraneous bytes before marker 0xd9".
        let error = try Self.refusal(
            "decode/corrupt-data-extraneous-before-eoi.jpg", configuration: Self.refusingIncompleteData)
        #expect(
            Self.incompleteDataDetail(error)
                == "the image data runs on past its end, so part of it was decoded out of step")
    }

    @Test(
        "a file cut short whose first warning is harmless (stray bytes before DQT) is still .incompleteImageData when refused"
    )
    func lossHiddenBehindAHarmlessWarning() throws {
        // libjpeg shows only the first warning of a decode, and TurboJPEG keeps one message: the
        // stray bytes would hide that the file ends early.
        var bytes = [UInt8](try Fixtures.data("corpus/truncated-baseline-2725x2225.jpg"))
        let quantization = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDB })
        bytes.insert(contentsOf: [0x00, 0x11, 0x22], at: quantization)
        let data = Data(bytes)
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer(configuration: Self.refusingIncompleteData).prepareBlocking(data, name: "cut.jpg")
        }
        #expect(
            error
                == .incompleteImageData(
                    file: "cut.jpg",
                    detail: "the file ends before its image data does, within rows 33 to 48 of 2225: from there down, "
                        + "99 % of the picture, it is missing and grey"))

        let photo = try PhotoPreparer().prepareBlocking(data, name: "cut.jpg")
        #expect(photo.warnings.map(\.kind).first == .imageData)
        #expect(
            photo.warnings.contains {
                $0
                    == PhotoWarning(
                        .incompleteImageData,
                        "part of the picture is missing or damaged and was filled in: the file ends before its image data does, within rows 33 to 48 of 2225: from there down, 99 % of the picture, it is missing and grey."
                    )
            }, "\(photo.warnings)")
    }

    // MARK: Harmless problems

    @Test("garbage between two header segments prepares, with an .imageData warning, to the same pixels")
    func extraneousBytesBeforeMarker() throws {
        let photo = try Self.prepared("decode/extraneous-bytes-before-dqt.jpg")
        #expect(photo.warnings.map(\.kind) == [.imageData])
        // libjpeg says "Corrupt JPEG data: 3 extraneous bytes before marker 0xdb".
        #expect(
            photo.warnings.first?.message
                == "libjpeg-turbo met a problem that lost no pixels: there are stray bytes between two segments.")
        let clean = try Self.prepared("decode/ycc420-224x150.jpg")
        #expect(
            try DecodedJPEG(photo.upload.data).planes.map(\.samples)
                == DecodedJPEG(clean.upload.data).planes.map(\.samples))
    }

    @Test(
        "malformed EXIF never stops the photo; what is reported is a .metadata warning",
        arguments: [
            "corpus/corrupt-exif-ifd1-offsets.jpg", "corpus/corrupt-exif-malformed-app1.jpg",
        ])
    func malformedEXIF(path: String) throws {
        let photo = try Self.prepared(path)
        #expect(photo.upload.size == PixelSize(width: 200, height: 200))
        #expect(photo.warnings.allSatisfy { $0.kind == .metadata }, "\(photo.warnings)")
    }

    @Test("an APP1 'Exif' that is no TIFF structure is reported as a .metadata warning")
    func malformedAPP1Warns() throws {
        let photo = try Self.prepared("corpus/corrupt-exif-malformed-app1.jpg")
        #expect(photo.warnings.contains { $0.kind == .metadata })
    }
}
