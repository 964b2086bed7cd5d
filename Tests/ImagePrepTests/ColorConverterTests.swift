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

    /// Our matrix-shaper arithmetic must be the transform lcms2 itself would apply.
    @Test("the matrix-shaper path agrees with lcms2 to within one level on 32768 colours")
    func matrixShaperMatchesLittleCMS() throws {
        let profile = try Self.profile(of: "gps-north-west-display-p3-nikon.jpg")
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
}
