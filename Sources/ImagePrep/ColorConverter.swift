#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CLCMS2
internal import CTurboJPEG

/// An lcms2 transform with exactly one owner.
///
/// Made with `cmsFLAGS_NOCACHE`, so that one transform can serve many threads at once: lcms2
/// keeps no per-call state in it then.
final class ColorTransform: @unchecked Sendable {
    private let handle: cmsHTRANSFORM

    fileprivate init?(from source: cmsHPROFILE, format: cmsUInt32Number, to target: cmsHPROFILE,
                      format targetFormat: cmsUInt32Number, intent: Int32, flags: Int32 = 0) {
        guard let handle = cmsCreateTransform(
            source, format, target, targetFormat, cmsUInt32Number(intent), cmsUInt32Number(cmsFLAGS_NOCACHE | flags))
        else { return nil }
        self.handle = handle
    }

    deinit { cmsDeleteTransform(handle) }

    /// Converts `count` pixels from `source` into `target` (which may be the same memory when
    /// both formats have the same size).
    func apply(_ source: UnsafeRawPointer, into target: UnsafeMutableRawPointer, count: Int) {
        cmsDoTransform(handle, source, target, cmsUInt32Number(count))
    }
}

/// An lcms2 profile with exactly one owner.
struct Profile: ~Copyable {
    let handle: cmsHPROFILE

    init?(_ bytes: [UInt8]) {
        guard let handle = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        else { return nil }
        self.handle = handle
    }

    init(taking handle: cmsHPROFILE) { self.handle = handle }

    deinit { cmsCloseProfile(handle) }

    var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }
}

/// The photo's embedded ICC profile, put together from its APP2 chunks.
struct ICCProfile: Hashable, Sendable {
    let bytes: [UInt8]

    /// Reassembles the profile from `ICC_PROFILE` APP2 chunks, ordered by their sequence numbers.
    ///
    /// - Returns: no profile when there are no chunks; a warning instead of a profile when the
    ///   chunks do not add up (missing, repeated or out of range), since a partial profile is garbage.
    static func assemble(from bytes: UnsafeRawBufferPointer, layout: JPEGLayout) -> (ICCProfile?, PhotoWarning?) {
        let chunks = layout.iccSegments(in: bytes)
        guard !chunks.isEmpty else { return (nil, nil) }
        let header = JPEGLayout.iccSignature.count
        var parts: [Int: Range<Int>] = [:]
        var declaredCount = -1
        for chunk in chunks {
            guard chunk.payload.count > header + 2 else { return (nil, inconsistent) }
            let sequence = Int(bytes[chunk.payload.lowerBound + header])
            let count = Int(bytes[chunk.payload.lowerBound + header + 1])
            guard sequence >= 1, sequence <= count, declaredCount == -1 || declaredCount == count,
                  parts[sequence] == nil
            else { return (nil, inconsistent) }
            declaredCount = count
            parts[sequence] = (chunk.payload.lowerBound + header + 2)..<chunk.payload.upperBound
        }
        guard parts.count == declaredCount else { return (nil, inconsistent) }
        var profile: [UInt8] = []
        for sequence in 1...declaredCount { profile.append(contentsOf: bytes[parts[sequence]!]) }
        return (ICCProfile(bytes: profile), nil)
    }

    private static let inconsistent = PhotoWarning(
        .colorProfile, "The ICC profile's APP2 chunks are missing or out of order; the copies keep the original colour numbers")
}

/// Brings colour to sRGB, so that copies without a profile look as the original does in a
/// colour-managed viewer (a Display P3 photo shown as sRGB looks washed out).
///
/// LittleCMS reads the profiles and does the work for profiles built from lookup tables. For
/// the common matrix-and-curves profiles (Display P3, Adobe RGB) the transform is the same
/// arithmetic lcms2 would do, evaluated here with vector maths at several times its speed, and
/// checked against lcms2 in the tests.
enum ColorConverter {
    /// What a copy without a profile needs.
    enum DisplayConversion: Sendable {
        /// The profile already means sRGB.
        case none
        /// A gray profile whose tone curve is not sRGB's: one table lookup per pixel.
        case grayTable([UInt8])
        /// An RGB matrix-and-curves profile.
        case matrixShaper(MatrixShaperTransform)
        /// Any other RGB profile, through lcms2.
        case lcms(ColorTransform)

        var isNeeded: Bool {
            if case .none = self { return false }
            return true
        }

        /// Converts 4:2:0 YCbCr or gray planes in place.
        ///
        /// Colour goes through RGB a strip of rows at a time, with libjpeg-turbo's own (SIMD)
        /// conversions both ways, so no full-size RGB image is ever made. Chroma is upsampled by
        /// replication, so strips join without seams, and downsampled again by averaging each 2x2
        /// block, which is what a 4:2:0 encoder does.
        func apply(
            to image: PlanarImage, stripBuffer: ScratchBuffer, compressor: borrowing Compressor,
            decompressor: borrowing Decompressor, file: String
        ) throws(ImagePrepError) {
            guard isNeeded else { return }
            if image.isGray {
                for y in 0..<image.size.height { apply(image.planes[0].row(y), count: image.size.width) }
                return
            }
            precondition(image.subsampling == .quarter, "stripped copies are 4:2:0")
            let stripRows = 32
            let width = image.size.width
            stripBuffer.reserve(width * stripRows * 3)
            let rgb = stripBuffer.bytes
            for top in stride(from: 0, to: image.size.height, by: stripRows) {
                let rows = min(stripRows, image.size.height - top)
                let planes = image.activePlanes
                var pointers: [UnsafeMutablePointer<UInt8>?] = planes.enumerated().map { index, plane in
                    plane.row(index == 0 ? top : top / 2)
                }
                var strides: [Int32] = planes.map { Int32($0.width) }
                let decoded = pointers.withUnsafeMutableBufferPointer { pointers in
                    strides.withUnsafeMutableBufferPointer { strides in
                        pointers.withMemoryRebound(to: UnsafePointer<UInt8>?.self) { readOnly in
                            tjDecodeYUVPlanes(
                                decompressor.handle, readOnly.baseAddress, strides.baseAddress,
                                Int32(TJSAMP_420.rawValue), rgb, Int32(width), 0, Int32(rows),
                                Int32(TJPF_RGB.rawValue), TJFLAG_FASTUPSAMPLE)
                        }
                    }
                }
                guard decoded == 0 else { throw .encodingFailed(file: file, detail: decompressor.lastMessage) }
                apply(rgb, count: rows * width)
                let encoded = pointers.withUnsafeMutableBufferPointer { pointers in
                    strides.withUnsafeMutableBufferPointer { strides in
                        tjEncodeYUVPlanes(
                            compressor.handle, rgb, Int32(width), 0, Int32(rows), Int32(TJPF_RGB.rawValue),
                            pointers.baseAddress, strides.baseAddress, Int32(TJSAMP_420.rawValue), 0)
                    }
                }
                guard encoded == 0 else { throw .encodingFailed(file: file, detail: compressor.lastMessage) }
            }
        }

        /// Converts interleaved RGB (or gray) pixels in place.
        func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
            switch self {
            case .none: break
            case .grayTable(let table):
                table.withUnsafeBufferPointer { table in
                    for index in 0..<count { pixels[index] = table[Int(pixels[index])] }
                }
            case .matrixShaper(let transform): transform.apply(pixels, count: count)
            case .lcms(let transform): transform.apply(pixels, into: pixels, count: count)
            }
        }
    }

    /// The conversion for the stripped copies of a photo with `profile`.
    ///
    /// Profiles that are sRGB in all but name (the same primaries and tone curve, as phones and
    /// cameras embed) need none; the answer is cached per profile because a batch of photos from
    /// one phone shares a profile and building a transform costs milliseconds.
    ///
    /// - Returns: `.none` with a warning when the profile cannot be used.
    static func displayConversion(for profile: ICCProfile, isGray: Bool) -> (DisplayConversion, PhotoWarning?) {
        let key = CacheKey(profile: profile, isGray: isGray)
        if let cached = cache.withLock({ $0[key] }) { return (cached, nil) }
        do {
            let conversion = try makeDisplayConversion(for: profile, isGray: isGray)
            cache.withLock { cache in
                if cache.count >= 16 { cache.removeAll() }
                cache[key] = conversion
            }
            return (conversion, nil)
        } catch {
            return (.none, error.warning)
        }
    }

    /// Why a profile cannot be used for the copies.
    private struct UnusableProfile: Error {
        let warning: PhotoWarning
    }

    /// Converts interleaved CMYK pixels to RGB: through the embedded CMYK profile when there is
    /// one, else with the plain complement formula that viewers without colour management use.
    ///
    /// - Parameter isInverted: whether 0 means full ink, as Adobe applications write CMYK JPEGs
    ///   (those with an Adobe APP14 marker).
    static func convertCMYK(
        _ cmyk: UnsafePointer<UInt8>, into rgb: UnsafeMutablePointer<UInt8>, count: Int, isInverted: Bool,
        profile: ICCProfile?
    ) -> PhotoWarning? {
        var warning: PhotoWarning?
        if let profile {
            if let transform = cmykTransform(for: profile, isInverted: isInverted) {
                transform.apply(cmyk, into: rgb, count: count)
                return nil
            }
            warning = PhotoWarning(.colorProfile, "The CMYK ICC profile could not be used; colours are approximate")
        }
        for index in 0..<count {
            let pixel = cmyk + index * 4
            let key = Int(isInverted ? pixel[3] : 255 - pixel[3])
            for channel in 0..<3 {
                let ink = Int(isInverted ? pixel[channel] : 255 - pixel[channel])
                rgb[index * 3 + channel] = UInt8((ink * key + 127) / 255)
            }
        }
        return warning
    }

    private struct CacheKey: Hashable {
        let profile: ICCProfile
        let isGray: Bool
    }

    private static let cache = Mutex<[CacheKey: DisplayConversion]>([:])

    private static func makeDisplayConversion(for iccProfile: ICCProfile, isGray: Bool) throws(UnusableProfile) -> DisplayConversion {
        guard let profile = Profile(iccProfile.bytes) else {
            throw UnusableProfile(warning: PhotoWarning(
                .colorProfile, "The embedded ICC profile is not readable; the copies keep the original colour numbers"))
        }
        let expected = isGray ? cmsSigGrayData : cmsSigRgbData
        guard profile.colorSpace == expected else {
            throw UnusableProfile(warning: PhotoWarning(
                .colorProfile, "The embedded ICC profile is for another colour space than the image's; it is ignored"))
        }
        if isGray {
            if matchesSRGBToneCurve(profile, tag: cmsSigGrayTRCTag) { return .none }
            let target = Profile(taking: makeSRGBGrayProfile())
            guard let transform = ColorTransform(
                from: profile.handle, format: CLCMS2_TYPE_GRAY_8, to: target.handle, format: CLCMS2_TYPE_GRAY_8,
                intent: INTENT_RELATIVE_COLORIMETRIC)
            else { throw UnusableProfile(warning: unusable) }
            var table = (0...255).map { UInt8($0) }
            table.withUnsafeMutableBytes { transform.apply($0.baseAddress!, into: $0.baseAddress!, count: 256) }
            return .grayTable(table)
        }
        let sRGB = Profile(taking: cmsCreate_sRGBProfile())
        let isSRGBCurve = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].allSatisfy {
            matchesSRGBToneCurve(profile, tag: $0)
        }
        if hasSRGBPrimaries(profile, sRGB: sRGB), isSRGBCurve { return .none }
        if let transform = MatrixShaperTransform(from: profile, toSRGB: sRGB) { return .matrixShaper(transform) }
        guard let transform = littleCMSTransform(for: iccProfile) else { throw UnusableProfile(warning: unusable) }
        return .lcms(transform)
    }

    /// lcms2's own transform from an RGB profile to sRGB, which the tests hold our matrix-shaper
    /// arithmetic to.
    static func littleCMSTransform(for iccProfile: ICCProfile) -> ColorTransform? {
        guard let profile = Profile(iccProfile.bytes) else { return nil }
        let sRGB = Profile(taking: cmsCreate_sRGBProfile())
        return ColorTransform(
            from: profile.handle, format: CLCMS2_TYPE_RGB_8, to: sRGB.handle, format: CLCMS2_TYPE_RGB_8,
            intent: INTENT_RELATIVE_COLORIMETRIC)
    }

    private static let unusable = PhotoWarning(
        .colorProfile, "LittleCMS could not convert the embedded ICC profile to sRGB; the copies keep the original colour numbers")

    private static func cmykTransform(for iccProfile: ICCProfile, isInverted: Bool) -> ColorTransform? {
        guard let profile = Profile(iccProfile.bytes), profile.colorSpace == cmsSigCmykData else { return nil }
        let sRGB = Profile(taking: cmsCreate_sRGBProfile())
        return ColorTransform(
            from: profile.handle, format: isInverted ? CLCMS2_TYPE_CMYK_8_REV : CLCMS2_TYPE_CMYK_8, to: sRGB.handle,
            format: CLCMS2_TYPE_RGB_8, intent: INTENT_PERCEPTUAL, flags: cmsFLAGS_BLACKPOINTCOMPENSATION)
    }

    /// Whether the profile's red, green and blue colorants are sRGB's (within the rounding of
    /// ICC's s15Fixed16 numbers and of the chromatic adaptation that profiles apply).
    private static func hasSRGBPrimaries(_ profile: borrowing Profile, sRGB: borrowing Profile) -> Bool {
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let ours = cmsReadTag(profile.handle, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee,
                  let theirs = cmsReadTag(sRGB.handle, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            else { return false }
            if abs(ours.X - theirs.X) > 0.002 || abs(ours.Y - theirs.Y) > 0.002 || abs(ours.Z - theirs.Z) > 0.002 {
                return false
            }
        }
        return true
    }

    /// Whether the tone curve under `tag` is sRGB's to within a level in 8 bits.
    private static func matchesSRGBToneCurve(_ profile: borrowing Profile, tag: cmsTagSignature) -> Bool {
        guard let tagData = cmsReadTag(profile.handle, tag) else { return false }
        let curve = OpaquePointer(tagData)
        for step in 1..<16 {
            let value = Float(step) / 16
            let linear = value <= 0.04045 ? value / 12.92 : powf((value + 0.055) / 1.055, 2.4)
            if abs(cmsEvalToneCurveFloat(curve, value) - linear) > 0.002 { return false }
        }
        return true
    }

    /// A gray profile with sRGB's tone curve: what a viewer assumes for a gray JPEG without one.
    private static func makeSRGBGrayProfile() -> cmsHPROFILE {
        var parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = cmsBuildParametricToneCurve(nil, 4, &parameters)
        defer { cmsFreeToneCurve(curve) }
        return cmsCreateGrayProfile(cmsD50_xyY(), curve)
    }
}

/// Relative colorimetric conversion from a matrix-and-curves RGB profile to sRGB: linearise each
/// channel through the profile's tone curves, apply one 3x3 matrix (the profile's colorants,
/// then sRGB's inverted, both in the D50 connection space), clip to the sRGB gamut and encode
/// with sRGB's curve. This is what lcms2 computes for such a pair.
final class MatrixShaperTransform: Sendable {
    /// The combined matrix, row by row.
    private let matrix: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    /// 256 linear values per input channel, channel-major.
    private let linearize: [Float]
    /// sRGB-encoded bytes for linear values 0...1 in `encodeSteps` steps.
    private let encode: [UInt8]
    private static let encodeSteps = 4096

    init?(from profile: borrowing Profile, toSRGB sRGB: borrowing Profile) {
        guard cmsIsMatrixShaper(profile.handle) != 0,
              let source = Self.colorants(profile), let target = Self.colorants(sRGB),
              let targetInverse = Self.inverse(target)
        else { return nil }
        var linearize = [Float](repeating: 0, count: 768)
        for (channel, tag) in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].enumerated() {
            guard let curve = cmsReadTag(profile.handle, tag) else { return nil }
            for value in 0..<256 {
                linearize[channel * 256 + value] = cmsEvalToneCurveFloat(OpaquePointer(curve), Float(value) / 255)
            }
        }
        let combined = Self.multiply(targetInverse, source)
        let c = combined.flatMap { $0.map(Float.init) }
        matrix = (c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
        self.linearize = linearize
        encode = (0..<Self.encodeSteps).map { step in
            let linear = Double(step) / Double(Self.encodeSteps - 1)
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
    }

    /// Converts `count` interleaved RGB pixels in place.
    ///
    /// Plain scalar arithmetic: the work is table lookups around a 3x3 matrix, and Swift's
    /// generic SIMD masks and clamps cost more here than they save.
    func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        let m = matrix
        linearize.withUnsafeBufferPointer { linearize in
            encode.withUnsafeBufferPointer { encode in
                @inline(__always) func encoded(_ linear: Float) -> UInt8 {
                    // Adding 1.5 * 2^23 rounds to the nearest step and leaves it in the low bits;
                    // clipping to the sRGB gamut happens on both sides of that.
                    let step = (max(linear, 0) * Float(Self.encodeSteps - 1) + 12_582_912).bitPattern & 0x3F_FFFF
                    return encode[min(Int(step), Self.encodeSteps - 1)]
                }
                for index in 0..<count {
                    let pixel = pixels + index * 3
                    let r = linearize[Int(pixel[0])], g = linearize[256 + Int(pixel[1])], b = linearize[512 + Int(pixel[2])]
                    pixel[0] = encoded(m.0 * r + m.1 * g + m.2 * b)
                    pixel[1] = encoded(m.3 * r + m.4 * g + m.5 * b)
                    pixel[2] = encoded(m.6 * r + m.7 * g + m.8 * b)
                }
            }
        }
    }

    /// The profile's colorant matrix: columns are the red, green and blue XYZ (D50).
    private static func colorants(_ profile: borrowing Profile) -> [[Double]]? {
        var columns: [cmsCIEXYZ] = []
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let xyz = cmsReadTag(profile.handle, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee else { return nil }
            columns.append(xyz)
        }
        return [
            [columns[0].X, columns[1].X, columns[2].X],
            [columns[0].Y, columns[1].Y, columns[2].Y],
            [columns[0].Z, columns[1].Z, columns[2].Z],
        ]
    }

    private static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { row in (0..<3).map { column in (0..<3).reduce(0) { $0 + a[row][$1] * b[$1][column] } } }
    }

    private static func inverse(_ m: [[Double]]) -> [[Double]]? {
        let determinant = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        guard abs(determinant) > 1e-12 else { return nil }
        let cofactors: [[Double]] = [
            [m[1][1] * m[2][2] - m[1][2] * m[2][1], m[0][2] * m[2][1] - m[0][1] * m[2][2], m[0][1] * m[1][2] - m[0][2] * m[1][1]],
            [m[1][2] * m[2][0] - m[1][0] * m[2][2], m[0][0] * m[2][2] - m[0][2] * m[2][0], m[0][2] * m[1][0] - m[0][0] * m[1][2]],
            [m[1][0] * m[2][1] - m[1][1] * m[2][0], m[0][1] * m[2][0] - m[0][0] * m[2][1], m[0][0] * m[1][1] - m[0][1] * m[1][0]],
        ]
        return cofactors.map { $0.map { $0 / determinant } }
    }
}
