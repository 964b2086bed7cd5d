import Foundation
import Testing

@testable import ImagePrep

/// The ICC profile made from an nclx colour description (an AVIF's, usually) is the same bytes
/// on every run, so that one photo prepared twice gives the same upload.
@Suite("ICC profiles made from nclx")
struct NCLXProfileTests {
    /// Display P3's primaries and white point with the sRGB curve, as an iPhone's AVIF says them.
    static let displayP3 = NCLXColor(
        primaries: 12, transfer: 13, matrix: 6, isFullRange: true, red: (0.680, 0.320), green: (0.265, 0.690),
        blue: (0.150, 0.060), white: (0.3127, 0.3290))

    @Test("two profiles made from one description, a second of the clock apart, are the same bytes")
    func madeTwiceIsTheSameBytes() throws {
        let first = try #require(ICCProfile.make(describing: Self.displayP3).0)
        // lcms2 dates a profile to the second: wait for the clock to turn (by the clock, not a
        // duration) so that a date taken from it would differ.
        let madeAt = time(nil)
        while time(nil) == madeAt { usleep(10_000) }
        let second = try #require(ICCProfile.make(describing: Self.displayP3).0)
        #expect(first.bytes == second.bytes)
        #expect(Array(first.bytes[24..<36]) == ICCProfile.fixedCreationDate, "the header's creation date")
        // The profile ID is left zero ("not computed"), so that no stale MD5 contradicts the date.
        #expect(first.bytes[84..<100].allSatisfy { $0 == 0 }, "the header's profile ID")
        // Still a profile lcms2 makes a transform of.
        #expect(ColorConverter.littleCMSTransform(for: first) != nil)
    }
}
