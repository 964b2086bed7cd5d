import Foundation
import Testing

@testable import ImagePrep

@Suite("Colour conversion to sRGB")
struct ColorConverterTests {
    static func profile(of name: String) throws -> ICCProfile {
        let data = try Fixtures.data("corpus/" + name)
        let (profile, warning) = data.withUnsafeBytes { ICCProfile.assemble(from: $0, layout: SegmentWalker.walk($0)) }
        #expect(warning == nil)
        return try #require(profile)
    }

    @Test(
        "profiles that are sRGB in all but name need no conversion",
        arguments: [
            "gps-north-east-pixel-4048x3036-gps-offset-only.jpg",  // "sRGB IEC61966-2.1"
            "mpf-ultrahdr-gainmap-3840x2160.jpg",  // "sRGB Gamut with sRGB Transfer"
            "exif-little-endian-canon-40d.jpg",
        ])
    func sRGBNeedsNothing(name: String) throws {
        let (conversion, warning) = ColorConverter.displayConversion(for: try Self.profile(of: name), isGray: false)
        #expect(warning == nil)
        #expect(!conversion.isNeeded)
    }

    /// Apple's "Generic Gray Gamma 2.2 Profile" in the corpus holds sRGB's tone curve (1024
    /// samples, checked by hand), so it needs nothing despite its name.
    @Test("Display P3 is converted; a gray profile is converted only when its curve is not sRGB's")
    func wideGamutIsConverted() throws {
        let (p3, _) = ColorConverter.displayConversion(
            for: try Self.profile(of: "gps-north-west-display-p3-nikon.jpg"), isGray: false)
        guard case .matrixShaper = p3 else {
            Issue.record("Display P3 should use the matrix-shaper path, got \(p3)")
            return
        }
        let (apple, _) = ColorConverter.displayConversion(
            for: try Self.profile(of: "grayscale-gray-gamma-icc.jpg"), isGray: true)
        #expect(!apple.isNeeded)

        let (gamma18, warning) = ColorConverter.displayConversion(for: Self.grayProfile(gamma: 1.8), isGray: true)
        #expect(warning == nil)
        guard case .grayTable(let table) = gamma18 else {
            Issue.record("a gamma 1.8 gray profile should become a table, got \(gamma18)")
            return
        }
        // 128 means 0.502^1.8 = 0.289 linear under gamma 1.8, which sRGB writes as 146.4.
        #expect(table[0] == 0 && table[255] == 255)
        #expect((146...147).contains(table[128]))
    }

    /// A minimal ICC v2 gray display profile: a D50 white point and a pure-gamma kTRC.
    static func grayProfile(gamma: Double) -> ICCProfile {
        func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        func u16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        func s15(_ value: Double) -> [UInt8] { u32(UInt32(bitPattern: Int32((value * 65536).rounded()))) }
        let whitePoint = Array("XYZ ".utf8) + u32(0) + s15(0.9642) + s15(1) + s15(0.8249)
        let curve = Array("curv".utf8) + u32(0) + u32(1) + u16(UInt16(gamma * 256)) + [0, 0]
        let tagTableSize = 4 + 2 * 12
        let whiteOffset = 128 + tagTableSize
        let curveOffset = whiteOffset + whitePoint.count
        let size = curveOffset + curve.count
        var header =
            u32(UInt32(size)) + Array("lcms".utf8) + [2, 0x10, 0, 0] + Array("mntr".utf8) + Array("GRAY".utf8)
            + Array("XYZ ".utf8) + [UInt8](repeating: 0, count: 12) + Array("acsp".utf8)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        header.replaceSubrange(68..<80, with: s15(0.9642) + s15(1) + s15(0.8249))
        let tags =
            u32(2) + Array("wtpt".utf8) + u32(UInt32(whiteOffset)) + u32(UInt32(whitePoint.count))
            + Array("kTRC".utf8) + u32(UInt32(curveOffset)) + u32(UInt32(curve.count))
        return ICCProfile(bytes: header + tags + whitePoint + curve)
    }

    /// A minimal ICC v2 RGB display profile: D50 colorants (X, Y, Z of red, green and blue) and
    /// one pure-gamma curve for the three channels.
    static func rgbProfile(colorants: [[Double]], gamma: Double) -> ICCProfile {
        func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        func u16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        func s15(_ value: Double) -> [UInt8] { u32(UInt32(bitPattern: Int32((value * 65536).rounded()))) }
        func xyz(_ value: [Double]) -> [UInt8] { Array("XYZ ".utf8) + u32(0) + value.flatMap(s15) }
        let curve = Array("curv".utf8) + u32(0) + u32(1) + u16(UInt16(gamma * 256)) + [0, 0]
        let elements = [xyz([0.9642, 1, 0.8249])] + colorants.map(xyz) + [curve]
        let signatures = ["wtpt", "rXYZ", "gXYZ", "bXYZ"]
        let tagTableSize = 4 + 7 * 12
        var offsets: [Int] = []
        var offset = 128 + tagTableSize
        for element in elements {
            offsets.append(offset)
            offset += element.count
        }
        var tags = u32(7)
        for (index, signature) in signatures.enumerated() {
            tags += Array(signature.utf8) + u32(UInt32(offsets[index])) + u32(UInt32(elements[index].count))
        }
        for signature in ["rTRC", "gTRC", "bTRC"] {
            tags += Array(signature.utf8) + u32(UInt32(offsets[4])) + u32(UInt32(curve.count))
        }
        var header =
            u32(UInt32(offset)) + Array("lcms".utf8) + [2, 0x10, 0, 0] + Array("mntr".utf8) + Array("RGB ".utf8)
            + Array("XYZ ".utf8) + [UInt8](repeating: 0, count: 12) + Array("acsp".utf8)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        header.replaceSubrange(68..<80, with: s15(0.9642) + s15(1) + s15(0.8249))
        return ICCProfile(bytes: header + tags + elements.joined())
    }

    /// ProPhoto RGB's primaries, far outside sRGB's: its matrix to sRGB has the widest range of
    /// any common profile's (entries from −0.73 to 2.03), which the folded tables must span.
    static let proPhotoColorants = [[0.7977, 0.2880, 0.0000], [0.1352, 0.7119, 0.0000], [0.0313, 0.0001, 0.8249]]

    /// Our matrix-shaper arithmetic must be the transform lcms2 itself would apply.
    @Test(
        "the matrix-shaper path agrees with lcms2 to within one level on 32768 colours",
        arguments: ["Display P3", "ProPhoto RGB"])
    func matrixShaperMatchesLittleCMS(profileName: String) throws {
        let profile =
            profileName == "Display P3"
            ? try Self.profile(of: "gps-north-west-display-p3-nikon.jpg")
            : Self.rgbProfile(colorants: Self.proPhotoColorants, gamma: 1.8)
        guard case .matrixShaper(let ours) = ColorConverter.displayConversion(for: profile, isGray: false).0 else {
            Issue.record("expected the matrix-shaper path")
            return
        }
        let reference = try #require(ColorConverter.littleCMSTransform(for: profile))
        var generator = SystemRandomNumberGenerator()
        var pixels = (0..<(32768 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Corners of the cube, where clipping happens.
        pixels.replaceSubrange(
            0..<24,
            with: [0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0, 0, 255, 255, 255, 0, 255])
        var expected = pixels
        expected.withUnsafeMutableBytes { reference.apply($0.baseAddress!, into: $0.baseAddress!, count: 32768) }
        pixels.withUnsafeMutableBufferPointer { ours.apply($0.baseAddress!, count: 32768) }
        let worst = zip(pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1)
    }

    /// Colorants from a hostile file can make a matrix no real profile has. The folded tables
    /// cannot span its range, so such a profile must take lcms2's own transform, not overflow them.
    @Test("a profile whose matrix the folded tables cannot span converts through lcms2")
    func hugeMatrixTakesLittleCMS() throws {
        let hostile = Self.rgbProfile(colorants: [[30, 0, 0], [0, 1, 0], [0, 0, 1]], gamma: 2.2)
        let (conversion, _) = ColorConverter.displayConversion(for: hostile, isGray: false)
        guard case .lcms = conversion else {
            Issue.record("expected lcms2's transform, got \(conversion)")
            return
        }
        let (proPhoto, _) = ColorConverter.displayConversion(
            for: Self.rgbProfile(colorants: Self.proPhotoColorants, gamma: 1.8), isGray: false)
        guard case .matrixShaper = proPhoto else {
            Issue.record("ProPhoto RGB should use the matrix-shaper path, got \(proPhoto)")
            return
        }
    }
}
