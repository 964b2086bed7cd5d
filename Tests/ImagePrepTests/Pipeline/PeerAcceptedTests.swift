import Foundation
import Testing

@testable import ImagePrep

/// Real files that vips, ImageMagick and Pillow prepare and that ImagePrep refused or got wrong
/// (issue 53, item 4), each prepared now the way the peers do. The fixtures are in
/// `Tests/Fixtures/peers` (made by its `make.sh` from real photos).
@Suite("Files every peer takes are prepared as the peers prepare them")
struct PeerAcceptedTests {
    /// How far apart two uploads of the same picture are: the largest difference, over Y, Cb
    /// and Cr, of their means in each cell of a 4 x 4 grid.
    static func distance(_ first: EncodedJPEG, _ second: EncodedJPEG) throws -> Double {
        let (a, b) = (try DecodedJPEG(first.data), try DecodedJPEG(second.data))
        var largest = 0.0
        for (planeA, planeB) in zip(a.planes, b.planes) {
            for y in 0..<4 {
                for x in 0..<4 {
                    let difference = planeA.average(cell: (x, y), grid: 4) - planeB.average(cell: (x, y), grid: 4)
                    largest = max(largest, abs(difference))
                }
            }
        }
        return largest
    }

    @Test(
        "a CMYK JPEG sampled 2x1, 1x2, 1x1, 1x1, which TurboJPEG's header call cannot name, prepares as its RGB original"
    )
    func cmykOddSampling() throws {
        let photo = try BadInputTests.prepared("peers/cmyk-sampling-2x1-1x2-1x1-1x1.jpg")
        #expect(photo.upload.size == PixelSize(width: 494, height: 327))
        // ImageMagick made it from this photo with the plain complement formula, which is how an
        // unprofiled CMYK photo is turned back into RGB.
        let original = try BadInputTests.prepared("corpus/gps-south-east-australia.jpg")
        let distance = try Self.distance(photo.upload, original.upload)
        #expect(distance < 3, "\(distance)")
    }

    @Test(
        "a four-channel JPEG without an Adobe segment is read as Adobe-inverted CMYK, as vips, ImageMagick and Pillow read it"
    )
    func cmykWithoutAdobeSegment() throws {
        let photo = try BadInputTests.prepared("peers/cmyk-without-adobe-segment.jpg")
        // The same samples with their APP14: the colours must be the same, not their inverse.
        let withSegment = try BadInputTests.prepared("corpus/cmyk-adobe-no-icc.jpg")
        let distance = try Self.distance(photo.upload, withSegment.upload)
        #expect(distance < 1, "\(distance)")
    }

    /// Every copy of a HEIF fixture against heif-convert's decode in `peers/references`, as
    /// `HEIFOrientationTests` holds the HEIF fixtures to theirs.
    static func expectHeifConvertPixels(_ path: String, size: PixelSize) throws {
        let photo = try Fixtures.prepared("peers/" + path)
        let name = (path as NSString).deletingPathExtension
        let reference = try DecodedJPEG(Fixtures.data("peers/references/\(name).jpg"))
        #expect(photo.upload.size == size && reference.size == size)
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            let psnr = try HEIFOrientationTests.lumaPSNR(of: copy, against: reference)
            #expect(psnr >= HEIFOrientationTests.minimumPSNR, "\(path) at \(copy.size): \(psnr) dB")
        }
    }

    @Test(
        "an iPhone 8's HEIC whose coded picture (100x76) is taller than its ispe (100x74) is cut to the declared size")
    func codedPictureLargerThanDeclared() throws {
        try Self.expectHeifConvertPixels(
            "iphone8-like-ispe-100x74-coded-100x76.heic", size: PixelSize(width: 100, height: 74))
    }

    @Test("an AVIF whose grid tiles share one extent (libavif's writer dedups them), beside a gain map, prepares")
    func gridTilesSharingData() throws {
        try Self.expectHeifConvertPixels(
            "av1-grid-shared-tile-data-gainmap-nongrid.avif", size: PixelSize(width: 128, height: 96))
    }
}
