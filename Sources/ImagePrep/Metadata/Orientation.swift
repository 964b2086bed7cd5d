/// The EXIF Orientation tag: how the stored pixels must be turned to show upright.
///
/// Raw values are the tag's 1–8, named as `CGImagePropertyOrientation` names them: the case says
/// where the top of the picture is in the stored pixels.
public enum Orientation: Int, Sendable, Hashable, Codable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transpose).
    case leftMirrored = 5
    /// 6: must be turned 90° clockwise to show upright (a phone held upright).
    case right = 6
    /// 7: mirrored along the anti-diagonal (transverse).
    case rightMirrored = 7
    /// 8: must be turned 90° counter-clockwise to show upright.
    case left = 8

    /// Whether showing the photo upright swaps its width and height.
    public var swapsWidthAndHeight: Bool { rawValue >= 5 }
}
