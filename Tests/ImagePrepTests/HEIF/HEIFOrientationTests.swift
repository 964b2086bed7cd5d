import Foundation
import Testing

@testable import ImagePrep

/// The orientation policy for HEIF, held to libheif's own tool: every copy shows the pixels that
/// `heif-convert` writes (libheif's `irot` and `imir` applied), and the upload's Orientation is 1,
/// so the upload is upright in every viewer, whether or not it honours EXIF.
///
/// Tolerance: the luma of each copy against heif-convert's decode (saved at its default JPEG
/// quality, 90, by `heic/make.sh`), resampled to the copy's size, as PSNR. Our copy is a quality-85
/// JPEG of the same decode, so the two differ by two JPEG encodes: at least 34 dB measured,
/// 30 dB asked for. A copy turned a quarter, or mirrored, the wrong way scores under 16 dB
/// (`aWrongTurnFails`), so the bound tells the two apart with room.
@Suite("HEIF copies are upright: the pixels heif-convert shows, the upload's Orientation 1")
struct HEIFOrientationTests {
    static let minimumPSNR = 30.0

    /// The luma of `reference` at `size`, Lanczos3-resampled when the copy is smaller.
    static func referenceLuma(_ reference: DecodedJPEG, at size: PixelSize) -> [Double] {
        reference.size == size ? reference.luma.values : reference.lumaGrid(columns: size.width, rows: size.height)
    }

    static func lumaPSNR(of copy: EncodedJPEG, against reference: DecodedJPEG) throws -> Double {
        let decoded = try DecodedJPEG(copy.data)
        return psnr(referenceLuma(reference, at: copy.size), decoded.luma.values)
    }

    @Test(
        "every copy of every HEIF fixture shows heif-convert's pixels, within the stated PSNR",
        arguments: Fixtures.HEIF.preparable)
    func copiesMatchHeifConvert(path: String) throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.displayEdge = 160  // smaller than the upload, so that it is made on its own
        configuration.thumbnailEdge = 64
        let photo = try Fixtures.prepared(path, configuration: configuration)
        let reference = try DecodedJPEG(Fixtures.data(Fixtures.HEIF.reference(of: path)))
        #expect(photo.upload.size == reference.size, "the upload is upright at full size: \(path)")
        var scores: [String] = []
        for (copy, kind) in [(photo.upload, "upload"), (photo.display, "display"), (photo.thumbnail, "thumbnail")] {
            let copy = try #require(copy)
            let score = try Self.lumaPSNR(of: copy, against: reference)
            #expect(score >= Self.minimumPSNR, "\(path) \(kind): \(score) dB")
            scores.append("\(kind) \(String(format: "%.1f", score)) dB")
        }
        print("\(path): \(scores.joined(separator: ", "))")
        // Upright pixels, so no viewer may turn them again: an Orientation tag in the original
        // is 1 in the upload (and an absent one stays absent).
        let (uploadMetadata, _) = PhotoMetadata.read(fromJPEG: photo.upload.data)
        let original = try Fixtures.HEIF.exifBlock(of: path).flatMap {
            EXIFDimensionFields(segment: EXIFDimensionFields.segment(aroundTIFF: $0))
        }
        // A block carried rebuilt (too large for APP1) is not taken out; its Orientation is read.
        let hasOrientation =
            original?.orientation != nil
            || (Fixtures.HEIF.rebuiltEXIF.contains(path) && photo.metadata.orientation != nil)
        #expect(uploadMetadata.orientation == (hasOrientation ? .up : nil), "\(path)")
    }

    @Test(
        "orientation-N.heic, stored as Landscape_N.jpg with the irot and imir that undo it, shows orientation-1's picture",
        arguments: 1...8)
    func everyTurnShowsTheSamePicture(n: Int) throws {
        let photo = try Fixtures.prepared("heic/orientation-\(n).heic")
        let upright = try DecodedJPEG(Fixtures.data("heic/references/orientation-1.jpg"))
        #expect(photo.upload.size == PixelSize(width: 224, height: 150))
        let score = try Self.lumaPSNR(of: photo.upload, against: upright)
        #expect(score >= Self.minimumPSNR, "orientation \(n): \(score) dB")
        // The turn that irot and imir give is the one the Exif Orientation names: no warning.
        #expect(photo.metadata.orientation?.rawValue == n)
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
    }

    @Test("the same copy turned any other way scores under 16 dB against heif-convert, so the bound discriminates")
    func aWrongTurnFails() throws {
        let photo = try Fixtures.prepared("heic/orientation-1.heic")
        let decoded = try DecodedJPEG(photo.upload.data)
        let reference = try DecodedJPEG(Fixtures.data("heic/references/orientation-1.jpg"))
        let image = PlanarImage()
        try image.reshape(size: decoded.size, isGray: true, subsampling: .full, file: "test")
        decoded.luma.samples.withUnsafeBufferPointer {
            image.planes[0].pixels.update(from: $0.baseAddress!, count: $0.count)
        }
        for orientation in Orientation.allCases where orientation != .up && !orientation.swapsWidthAndHeight {
            let turned = PlanarImage()
            try image.orient(orientation, into: turned, file: "test")
            let samples = (0..<turned.size.height).flatMap { y in
                (0..<turned.size.width).map { Double(turned.planes[0].row(y)[$0]) }
            }
            let score = psnr(reference.luma.values, samples)
            #expect(score < 16, "\(orientation): \(score) dB")
        }
    }

    @Test(
        "an iPhone-like grid stored sideways (irot 3, Orientation 6) comes out portrait, Orientation 1, dimensions patched"
    )
    func iPhoneGrid() throws {
        let photo = try Fixtures.prepared("heic/iphone-like-grid-p3-rotated.heic")
        #expect(photo.metadata.originalSize == PixelSize(width: 1000, height: 750), "as stored, as exiftool reads it")
        #expect(photo.metadata.orientation == .right, "the Exif tag as stored")
        #expect(photo.upload.size == PixelSize(width: 750, height: 1000))
        #expect(photo.display?.size == PixelSize(width: 750, height: 1000))
        let upload = try #require(UploadSegments.exifSegment(of: photo.upload.data))
        let fields = try #require(EXIFDimensionFields(segment: upload))
        #expect(fields.orientation?.value(in: upload) == 1)
        #expect(fields.width?.value(in: upload) == 750 && fields.height?.value(in: upload) == 1000)
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
    }

    @Test("an Exif Orientation that the file's own turn does not say is warned about, and the copies follow the file")
    func exifOrientationWithoutIrot() throws {
        let photo = try Fixtures.prepared("heic/exif-orientation-6-without-irot.heic")
        #expect(photo.metadata.orientation == .right)
        // libheif shows it as stored: 150x224, and so do the copies.
        #expect(photo.upload.size == PixelSize(width: 150, height: 224))
        #expect(photo.warnings.map(\.kind) == [.metadata])
        #expect(photo.warnings.first?.message.contains("Orientation (6)") == true, "\(photo.warnings)")
    }

    @Test(
        "the turn is the same when the upload needs no resample, when it does, after a 2x2, 4x4 or 8x8 average, and on two threads"
    )
    func turnWithAndWithoutResampling() throws {
        let reference = try DecodedJPEG(Fixtures.data("heic/references/iphone-like-grid-p3-rotated.jpg"))
        for (maxEdge, splits) in [(1000, false), (600, false), (600, true), (400, false), (200, true), (97, true)] {
            var configuration = PhotoPreparer.Configuration()
            configuration.maxEdge = maxEdge
            configuration.splitsWorkAcrossCores = splits
            let photo = try Fixtures.prepared("heic/iphone-like-grid-p3-rotated.heic", configuration: configuration)
            #expect(photo.upload.size.height == maxEdge && photo.upload.size.width < maxEdge)
            let score = try Self.lumaPSNR(of: photo.upload, against: reference)
            #expect(score >= Self.minimumPSNR, "max edge \(maxEdge), split \(splits): \(score) dB")
        }
    }
}
