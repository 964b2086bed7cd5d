/// Where a GIF's first frame lies on the picture, by the rule browsers follow (Blink's GIF
/// reader): a first frame larger than the logical screen (or a screen of 0 x 0) makes the picture
/// the frame's size with the frame at its corner; else the picture is the screen, the frame at
/// its offset, and what of it lies past the screen's edges is not shown.
struct GIFPlacement {
    let canvas: PixelSize
    let left: Int
    let top: Int
    /// The part of the frame inside the canvas, from its top left corner.
    let visible: PixelSize

    init(screen: PixelSize, frame: GIFFile.Frame, file: String) throws(ImagePrepError) {
        guard frame.size.width > 0, frame.size.height > 0 else {
            throw .corruptGIF(file: file, detail: "its first frame has a width or a height of 0")
        }
        if screen.width < frame.size.width || screen.height < frame.size.height {
            (canvas, left, top, visible) = (frame.size, 0, 0, frame.size)
        } else {
            (canvas, left, top) = (screen, frame.left, frame.top)
            visible = PixelSize(
                width: max(0, min(frame.size.width, screen.width - frame.left)),
                height: max(0, min(frame.size.height, screen.height - frame.top)))
        }
    }

    /// Whether the frame covers the whole picture, which then has no pixel of background.
    var coversCanvas: Bool { left == 0 && top == 0 && visible == canvas }
}
