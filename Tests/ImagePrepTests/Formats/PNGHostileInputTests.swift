import Foundation
import Testing

@testable import ImagePrep

/// The PNG bombs of `Tests/Fixtures/formats/png/hostile` (its `make.py`): each refused or
/// bounded, from its header or by libspng's limits, with no decode of what it declares.
@Suite("PNG bombs are refused or bounded")
struct PNGHostileInputTests {
    static func refusal(_ name: String, configuration: PhotoPreparer.Configuration = .init()) -> ImagePrepError? {
        do {
            _ = try PhotoPreparer(configuration: configuration).prepareBlocking(
                Fixtures.data("formats/png/hostile/" + name), name: name)
            return nil
        } catch let error as ImagePrepError {
            return error
        } catch {
            Issue.record("\(error)")
            return nil
        }
    }

    @Test("a 340-byte PNG declaring 100,000 x 100,000 pixels is refused from its IHDR")
    func declaredSize() {
        let size = PixelSize(width: 100_000, height: 100_000)
        #expect(
            Self.refusal("declares-100000x100000.png")
                == .tooManyPixels(file: "declares-100000x100000.png", size: size, limit: 210_000_000))
    }

    @Test("an interlaced 100 MP RGBA PNG, under the pixel limit, is refused before its whole picture is allocated")
    func interlacedBudget() {
        guard case .unsupportedPNG(_, let reason) = Self.refusal("interlaced-10000x10000-rgba.png") else {
            Issue.record("not refused as an unsupported PNG")
            return
        }
        #expect(reason.contains("interlaced"), "\(reason)")
    }

    @Test("image data whose zlib stream inflates to 100 MB past its 16 rows: the 16 rows are prepared")
    func idatInflatesPastThePicture() throws {
        let photo = try PhotoPreparer().prepareBlocking(
            Fixtures.data("formats/png/hostile/idat-inflates-100mb.png"), name: "idat.png")
        #expect(photo.metadata.originalSize == PixelSize(width: 16, height: 16))
    }

    @Test(
        "a zTXt or an iCCP that inflates to 100 MB stops at libspng's chunk limits: refused as a damaged PNG",
        arguments: ["ztxt-inflates-100mb.png", "iccp-inflates-100mb.png"])
    func chunkBombs(name: String) {
        guard case .corruptPNG(_, let detail) = Self.refusal(name) else {
            Issue.record("\(name): not refused as a damaged PNG")
            return
        }
        #expect(detail.contains("limit"), "\(detail)")
    }

    @Test("an APNG whose default image is not a frame: the default image, with a warning that says so")
    func defaultImageNotAFrame() throws {
        let photo = try PhotoPreparer().prepareBlocking(
            Fixtures.data("formats/png/hostile/apng-default-image-not-a-frame.png"), name: "a.png")
        let warning = try #require(photo.warnings.first { $0.kind == .animation })
        #expect(warning.message.contains("default image is prepared"), "\(warning)")
        // The default image's gradient, not a frame's flat grey.
        let luma = try DecodedJPEG(photo.upload.data).luma.values
        #expect(Set(luma.map { Int($0) / 16 }).count > 3)
    }

    @Test("an APNG declaring 100,000 frames costs one warning, not a frame's work each")
    func manyFrames() throws {
        let photo = try PhotoPreparer().prepareBlocking(
            Fixtures.data("formats/png/hostile/apng-declares-100000-frames.png"), name: "a.png")
        #expect(photo.warnings.map(\.kind) == [.animation])
        #expect(photo.warnings.first?.message.contains("100000 frames") == true)
    }

    @Test("a PNG cut in its image data is prepared with a warning by default, as a JPEG is, and refused when asked")
    func cutShort() throws {
        var refusing = PhotoPreparer.Configuration()
        refusing.acceptsIncompleteData = false
        guard
            case .incompleteImageData(_, let detail) = Self.refusal(
                "cut-in-the-image-data.png", configuration: refusing)
        else {
            Issue.record("not refused as incomplete")
            return
        }
        #expect(detail.contains("rows missing"), "\(detail)")
        let photo = try PhotoPreparer().prepareBlocking(
            Fixtures.data("formats/png/hostile/cut-in-the-image-data.png"), name: "cut.png")
        #expect(photo.warnings.map(\.kind) == [.incompleteImageData])
        #expect(photo.upload.size == PixelSize(width: 64, height: 64))
    }
}
