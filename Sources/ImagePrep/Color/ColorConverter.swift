internal import CLCMS2
internal import CPixelKernels
internal import CTurboJPEG
internal import PlatformLayer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An lcms2 transform with exactly one owner.
///
/// Made with `cmsFLAGS_NOCACHE`, so that one transform can serve many threads at once: lcms2
/// keeps no per-call state in it then.
final class ColorTransform: @unchecked Sendable {
    private let handle: cmsHTRANSFORM

    fileprivate init?(
        from source: cmsHPROFILE, format: cmsUInt32Number, to target: cmsHPROFILE,
        format targetFormat: cmsUInt32Number, intent: Int32, flags: Int32 = 0
    ) {
        guard
            let handle = cmsCreateTransform(
                source, format, target, targetFormat, cmsUInt32Number(intent), cmsUInt32Number(cmsFLAGS_NOCACHE | flags)
            )
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

/// Brings colour to sRGB, so that copies without a profile look as the original does in a
/// colour-managed viewer (a Display P3 photo shown as sRGB looks washed out).
///
/// LittleCMS reads the profiles and does the work for profiles built from lookup tables. For
/// the common matrix-and-curves profiles (Display P3, Adobe RGB) the transform is the same
/// arithmetic lcms2 would do (`MatrixShaperTransform`), at several times its speed, and
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

        /// Converts a band of rows of 4:2:0 YCbCr or gray planes in place, so that bands can be
        /// converted on several threads. A band starts on an even row; the luma plane's padding
        /// is the caller's to replicate once every band is done.
        ///
        /// A matrix-and-curves profile (Display P3 and most phone profiles) converts in one C
        /// pass over the planes (`MatrixShaperTransform`), computing the same bytes as
        /// `convertThroughRGB`, which other profiles go through.
        func apply(
            to image: PlanarImage, rows: Range<Int>, stripBuffer: ScratchBuffer, compressor: borrowing Compressor,
            decompressor: borrowing Decompressor, file: String
        ) throws(ImagePrepError) {
            guard isNeeded, !rows.isEmpty else { return }
            if image.isGray {
                for y in rows { apply(image.planes[0].row(y), count: image.size.width) }
                return
            }
            precondition(image.subsampling == .quarter, "stripped copies are 4:2:0")
            precondition(rows.lowerBound % 2 == 0, "a band of 4:2:0 rows starts on an even row")
            if case .matrixShaper(let transform) = self {
                transform.apply(
                    luma: image.planes[0], cb: image.planes[1], cr: image.planes[2], width: image.size.width,
                    rows: rows.count, top: rows.lowerBound)
                return
            }
            try convertThroughRGB(
                image, rows: rows, stripBuffer: stripBuffer, compressor: compressor, decompressor: decompressor,
                file: file)
        }

        /// Converts a band of rows of 4:2:0 planes in place through RGB a strip of rows at a
        /// time, with libjpeg-turbo's own (SIMD) conversions both ways, so no full-size RGB
        /// image is ever made. Chroma is upsampled by replication, so strips join without seams,
        /// and downsampled again by averaging each 2x2 block, which is what a 4:2:0 encoder does.
        func convertThroughRGB(
            _ image: PlanarImage, rows band: Range<Int>, stripBuffer: ScratchBuffer, compressor: borrowing Compressor,
            decompressor: borrowing Decompressor, file: String
        ) throws(ImagePrepError) {
            let stripRows = 32
            let width = image.size.width
            stripBuffer.reserve(width * stripRows * 3)
            let rgb = stripBuffer.pointer
            for top in stride(from: band.lowerBound, to: band.upperBound, by: stripRows) {
                let rows = min(stripRows, band.upperBound - top)
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
                guard decoded == 0 else { throw .encodingFailed(file: file, detail: decompressor.lastMessage.clause) }
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
                table.withUnsafeBufferPointer { table in pk_apply_table(pixels, count, table.baseAddress!) }
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
    ///   (and as a JPEG's four channels are read, with an Adobe APP14 marker or without).
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
            warning = PhotoWarning(.colorProfile, "the CMYK ICC profile could not be used; colours are approximate.")
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

    private static let cache = Locked<[CacheKey: DisplayConversion]>([:])

    private static func makeDisplayConversion(for iccProfile: ICCProfile, isGray: Bool) throws(UnusableProfile)
        -> DisplayConversion
    {
        guard let profile = Profile(iccProfile.bytes) else {
            throw UnusableProfile(
                warning: PhotoWarning(
                    .colorProfile,
                    "the embedded ICC profile is not readable; the copies keep the original colour numbers."))
        }
        let expected = isGray ? cmsSigGrayData : cmsSigRgbData
        guard profile.colorSpace == expected else {
            throw UnusableProfile(
                warning: PhotoWarning(
                    .colorProfile,
                    "the embedded ICC profile is for another colour space than the image's; it is ignored."))
        }
        if isGray {
            if matchesSRGBToneCurve(profile, tag: cmsSigGrayTRCTag) { return .none }
            let target = Profile(taking: makeSRGBGrayProfile())
            guard
                let transform = ColorTransform(
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
        .colorProfile,
        "LittleCMS could not convert the embedded ICC profile to sRGB; the copies keep the original colour numbers.")

    static func cmykTransform(for iccProfile: ICCProfile, isInverted: Bool) -> ColorTransform? {
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
