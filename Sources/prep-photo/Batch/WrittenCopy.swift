import ImagePrep

/// A copy as the report describes it: written now, or kept and read again (nil for what could
/// not be read again).
struct WrittenCopy: Sendable {
    let path: BytePath
    let size: PixelSize?
    let byteCount: Int?
}
