internal import CLCMS2

extension ICCProfile {
    /// An ICC profile that says what a HEIF file's nclx colour description says (its primaries,
    /// white point and transfer curve), made with lcms2, so that a wide-gamut HEIF without an ICC
    /// profile (AVIF usually has none) goes through the same conversion to sRGB as any JPEG, and
    /// its upload carries a profile that viewers understand.
    ///
    /// - Returns: nil when the description is sRGB in all but name (BT.709 or unspecified
    ///   primaries with an sRGB-like curve), which needs nothing; nil and a warning for a curve
    ///   no SDR profile can describe (PQ, HLG) or primaries libheif does not know.
    static func make(describing color: NCLXColor) -> (ICCProfile?, PhotoWarning?) {
        // H.273 transfer characteristics: 1, 6, 14, 15 are BT.709's curve, 13 is sRGB's. Photos
        // tagged BT.709 are shown as sRGB by viewers that do not manage colour, so they pass as is.
        let sRGBLikeTransfers: Set = [1, 2, 6, 13, 14, 15]
        if [1, 2].contains(color.primaries), sRGBLikeTransfers.contains(color.transfer) { return (nil, nil) }
        let curve: (type: Int32, parameters: [cmsFloat64Number])
        switch color.transfer {
        case 2, 13: curve = (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        case 1, 6, 14, 15: curve = (4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
        case 7: curve = (4, [1 / 0.45, 1 / 1.1115, 0.1115 / 1.1115, 1 / 4, 0.0913])
        case 4: curve = (1, [2.2])
        case 5: curve = (1, [2.8])
        case 8: curve = (1, [1])
        default:
            return (
                nil,
                PhotoWarning(
                    .colorProfile,
                    "the HEIF file's colours use a transfer curve for HDR or one ImagePrep does not know; the copies keep the original colour numbers."
                )
            )
        }
        let points = [color.red, color.green, color.blue, color.white]
        guard points.allSatisfy({ $0.x > 0 && $0.y > 0 && $0.x < 1 && $0.y < 1 }) else {
            return (
                nil,
                PhotoWarning(
                    .colorProfile,
                    "the HEIF file's colour primaries are of a kind libheif does not know; the copies keep the original colour numbers."
                )
            )
        }
        var white = cmsCIExyY(x: color.white.x, y: color.white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: color.red.x, y: color.red.y, Y: 1),
            Green: cmsCIExyY(x: color.green.x, y: color.green.y, Y: 1),
            Blue: cmsCIExyY(x: color.blue.x, y: color.blue.y, Y: 1))
        var parameters = curve.parameters
        guard let toneCurve = cmsBuildParametricToneCurve(nil, curve.type, &parameters) else { return (nil, nil) }
        defer { cmsFreeToneCurve(toneCurve) }
        var curves: [OpaquePointer?] = [toneCurve, toneCurve, toneCurve]
        guard let profile = cmsCreateRGBProfile(&white, &primaries, &curves) else { return (nil, nil) }
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0, size > 0 else { return (nil, nil) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(profile, &bytes, &size) != 0, bytes.count >= 128 else { return (nil, nil) }
        // lcms2 dates the profile by the clock (the header's creation date, bytes 24 to 35, which
        // no call sets): a fixed date keeps a photo's copies the same whatever second they are
        // made in (a batch and the same photo alone differed). The profile ID is left zero.
        bytes.replaceSubrange(24..<36, with: creationDate)
        return (ICCProfile(bytes: bytes), nil)
    }

    /// 2020-01-01 00:00:00, as the ICC header's dateTimeNumber: six big-endian 16-bit fields.
    static let creationDate: [UInt8] = [0x07, 0xE4, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
}
