import Foundation
import Testing

@testable import ImagePrep

@Suite("Display copy and thumbnail: stripped, upright, sRGB")
struct StrippedCopyTests {
    static let preparer = PhotoPreparer()

    /// Corpus files that ImageMagick could read, with its 8x8 grey grid after `-auto-orient`.
    static let orientedFiles: [String] = Fixtures.corpusNames.filter {
        ExpectedValues.file($0)?["oriented_gray_8x8_imagemagick"]?.string != nil && preparable.contains($0)
    }

    /// Corpus JPEGs that libjpeg-turbo's djpeg decodes without an error or a warning.
    static let preparable: [String] = Fixtures.corpusNames.filter {
        ExpectedValues.file($0)?["djpeg"]?["rc"]?.int == 0 && ExpectedValues.file($0)?["bits_per_sample"]?.int == 8
    }

    /// The eight ways to turn or mirror an 8x8 grid; index 0 leaves it as it is.
    static func dihedral(_ grid: [Double]) -> [[Double]] {
        let maps: [(Int, Int) -> (Int, Int)] = [
            { ($0, $1) }, { (7 - $0, $1) }, { (7 - $0, 7 - $1) }, { ($0, 7 - $1) },
            { ($1, $0) }, { (7 - $1, $0) }, { (7 - $1, 7 - $0) }, { ($1, 7 - $0) },
        ]
        return maps.map { map in
            (0..<64).map { index in
                let (x, y) = map(index % 8, index / 8)
                return grid[y * 8 + x]
            }
        }
    }

    static func meanAbsoluteDifference(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } / Double(a.count)
    }

    /// ImageMagick (`-auto-orient`, in expected.json) is the reference. Comparing against all
    /// eight turns of its grid proves more than closeness: a copy turned the wrong way would be
    /// closer to one of the other seven.
    @Test(
        "the display copy is upright: it matches ImageMagick's auto-oriented grid and no other turn of it",
        arguments: orientedFiles)
    func displayIsUpright(name: String) throws {
        let expected = try #require(ExpectedValues.file(name))
        let hex = try #require(expected["oriented_gray_8x8_imagemagick"]?.string)
        let reference = stride(from: 0, to: hex.count, by: 2).map { offset -> Double in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return Double(UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!)
        }
        let photo = try Self.preparer.prepareBlocking(Fixtures.data("corpus/" + name), name: name)
        let display = try #require(photo.display)
        let decoded = try DecodedJPEG(display.data)
        let orientedWidth = try #require(expected["oriented_width"]?.int)
        let orientedHeight = try #require(expected["oriented_height"]?.int)
        #expect(
            (display.size.width > display.size.height) == (orientedWidth > orientedHeight)
                || orientedWidth == orientedHeight)

        let ours = decoded.lumaGrid(columns: 8, rows: 8)
        let distances = Self.dihedral(reference).map { Self.meanAbsoluteDifference(ours, $0) }
        // Measured: 0.3–0.6 levels for the sixteen orientation photos, up to 6 for files whose
        // colours we convert and ImageMagick does not (P3, gray gamma, CMYK); a wrong turn costs
        // 30 or more on the orientation photos.
        #expect(
            distances[0] < (name.hasPrefix("orientation-") ? 1.5 : 7),
            "mean difference from ImageMagick's grid: \(distances[0])")
        for turn in 1..<8 where Self.meanAbsoluteDifference(reference, Self.dihedral(reference)[turn]) > 4 {
            #expect(distances[0] < distances[turn], "closer to turn \(turn) of the reference than to the reference")
        }
    }

    /// Stripped means: SOI, an optional JFIF APP0, the original's COM segments byte for byte,
    /// and the tables and image data. No EXIF, XMP, ICC, MPF, IPTC or any other APPn.
    @Test(
        "every stripped copy of every corpus photo holds only JFIF, the comments and the image", arguments: preparable)
    func copiesAreStripped(name: String) throws {
        let original = try Fixtures.data("corpus/" + name)
        let photo = try Self.preparer.prepareBlocking(original, name: name)
        let comments: [Data] = original.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).commentSegments.map { Data(bytes[$0.bytes]) }
        }
        for copy in [try #require(photo.display), try #require(photo.thumbnail)] {
            let layout = copy.data.withUnsafeBytes { SegmentWalker.walk($0) }
            let metadata = layout.segments.filter {
                (0xE0...0xEF).contains($0.marker) || $0.marker == JPEGSegment.comment
            }
            let copiedComments = copy.data.withUnsafeBytes { bytes in
                layout.commentSegments.map { Data(bytes[$0.bytes]) }
            }
            #expect(copiedComments == comments)
            #expect(
                metadata.filter { $0.marker != JPEGSegment.comment }.map(\.marker).allSatisfy { $0 == JPEGSegment.app0 }
            )
            #expect(metadata.filter { $0.marker == JPEGSegment.app0 }.count <= 1)
            let decoded = try DecodedJPEG(copy.data)
            #expect(decoded.size == copy.size)
        }
        let thumbnail = try #require(photo.thumbnail)
        let display = try #require(photo.display)
        #expect(thumbnail.size.longEdge == min(400, display.size.longEdge))
        #expect((thumbnail.size.width >= thumbnail.size.height) == (display.size.width >= display.size.height))
    }

    /// The reference is what a colour-managed viewer shows for the original (LittleCMS through
    /// Pillow, made by `Fixtures/color/make-p3-reference.py`). ΔE is CIE76 in Lab (D65).
    @Test("a Display P3 photo's saturated patches keep their colour in the sRGB display copy")
    func displayP3IsConverted() throws {
        struct Reference: Decodable {
            struct Patch: Decodable {
                let x, y, width, height: Int
                let srgb: [Double]
                let unconverted: [Double]
            }
            let patches: [Patch]
        }
        let reference = try JSONDecoder().decode(Reference.self, from: Fixtures.data("color/p3-reference.json"))
        let name = "gps-north-west-display-p3-nikon.jpg"
        let photo = try Self.preparer.prepareBlocking(Fixtures.data("corpus/" + name), name: name)
        let display = try DecodedJPEG(try #require(photo.display).data, makingRGB: true)
        #expect(display.size == PixelSize(width: 600, height: 400))
        for patch in reference.patches {
            let ours = display.meanRGB(x: patch.x, y: patch.y, width: patch.width, height: patch.height)
            #expect(ColorDifference.deltaE76(ours, patch.srgb) < 2.5, "patch at \(patch.x),\(patch.y): ours \(ours)")
            // Without the conversion the copy would be this far off: the test can fail.
            #expect(ColorDifference.deltaE76(patch.unconverted, patch.srgb) > 8)
        }
    }
}

/// CIE76 colour difference between two sRGB colours (0–255), through CIE Lab with a D65 white.
enum ColorDifference {
    static func deltaE76(_ a: [Double], _ b: [Double]) -> Double {
        let (l1, a1, b1) = lab(a)
        let (l2, a2, b2) = lab(b)
        return ((l1 - l2) * (l1 - l2) + (a1 - a2) * (a1 - a2) + (b1 - b2) * (b1 - b2)).squareRoot()
    }

    static func lab(_ rgb: [Double]) -> (Double, Double, Double) {
        let linear = rgb.map { value -> Double in
            let v = value / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let x = (0.4124 * linear[0] + 0.3576 * linear[1] + 0.1805 * linear[2]) / 0.95047
        let y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        let z = (0.0193 * linear[0] + 0.1192 * linear[1] + 0.9505 * linear[2]) / 1.08883
        func f(_ t: Double) -> Double { t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }
}
