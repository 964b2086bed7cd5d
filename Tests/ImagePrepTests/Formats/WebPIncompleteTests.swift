import Foundation
import Testing

@testable import ImagePrep

/// A WebP cut short follows the rule a JPEG's, a PNG's and a GIF's follow (docs/library.md): its
/// rows up to the cut are prepared, the rest repeating the last row decoded, with an
/// `.incompleteImageData` warning that says how many rows there are; with `acceptsIncompleteData`
/// off it is refused as `.incompleteImageData`. Lossy, lossless and lossy-with-alpha files, cut
/// at 60 % of their length.
@Suite("A WebP cut short is prepared with a warning, or refused when asked")
struct WebPIncompleteTests {
    static let files = [
        "webp-lossy-vp8-photo-twelvemonkeys.webp", "webp-lossless-vp8l-alpha-twelvemonkeys.webp",
        "webp-lossy-alpha-twelvemonkeys.webp",
    ]

    static func cut(_ name: String) throws -> Data {
        let whole = try Fixtures.data("formats/" + name)
        return whole.prefix(whole.count * 6 / 10)
    }

    @Test("the rows before the cut are the whole file's, and the warning says how many there are", arguments: files)
    func preparedWithWarning(name: String) throws {
        let whole = try PhotoPreparer().prepareBlocking(Fixtures.data("formats/" + name), name: name)
        let photo = try PhotoPreparer().prepareBlocking(Self.cut(name), name: name)
        let warning = try #require(photo.warnings.first { $0.kind == .incompleteImageData }, "\(photo.warnings)")
        let height = whole.metadata.originalSize.height
        let match = try #require(
            warning.message.firstMatch(
                of: /^the file ends after (\d+) of its (\d+) rows of image data; the rest repeats/))
        let rows = try #require(Int(match.1))
        #expect(Int(match.2) == height && rows > 0 && rows < height, "\(warning)")
        #expect(photo.upload.size == whole.upload.size)
        // The top of the picture, well above the cut, is what the whole file gives.
        let (cutLuma, wholeLuma) = (try DecodedJPEG(photo.upload.data).luma, try DecodedJPEG(whole.upload.data).luma)
        let band = rows * cutLuma.height / height * 8 / 10
        try #require(band > 0)
        let top = { (plane: DecodedJPEG.Plane) in plane.cropped(x: 0, y: 0, width: plane.width, height: band).values }
        let difference =
            zip(top(cutLuma), top(wholeLuma)).map { abs($0 - $1) }.reduce(0, +) / Double(band * cutLuma.width)
        #expect(difference < 2, "\(difference)")
    }

    @Test("with acceptsIncompleteData off, the cut file is refused as incomplete, naming the rows", arguments: files)
    func refusedWhenAsked(name: String) throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.acceptsIncompleteData = false
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer(configuration: configuration).prepareBlocking(Self.cut(name), name: name)
        }
        #expect(error.code == "incomplete", "\(error)")
        #expect(error.description.contains("the file ends after "), "\(error)")
    }

    @Test("a WebP cut inside its headers, before any row, is still a damaged WebP")
    func cutBeforeAnyRow() throws {
        let data = try Fixtures.data("formats/" + Self.files[0]).prefix(40)
        let error = try #require(throws: ImagePrepError.self) { try PhotoPreparer().prepareBlocking(data, name: "w") }
        #expect(error.code == "corrupt_webp", "\(error)")
    }
}
