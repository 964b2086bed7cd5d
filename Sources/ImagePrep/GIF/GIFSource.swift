#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A GIF (static, transparent or animated): its first frame as a viewer shows it first, drawn at
/// its offset on the logical screen, the rest of the screen and its transparent pixels composited
/// over `Configuration.background`, a line at a time straight into the upload's resamplers.
///
/// An animated GIF gives a warning that only one frame is carried; its other frames are never
/// decoded. A GIF carries no EXIF or ICC profile, so the copies have no metadata.
struct GIFSource: PhotoSource {
    let context: PreparationContext

    /// An interlaced frame's rows come in four passes; it is read again for each band of this many
    /// bytes of colour indices (one a pixel), so that no frame is ever held whole.
    static let interlacedBandBytes = 16 << 20

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        let start = clock.now
        let gif = try GIFFile(bytes, file: file)
        // The declared screen first: a 1 KB file may declare 65535 x 65535.
        if gif.screenSize.pixelCount > configuration.maxPixels {
            throw .tooManyPixels(file: file, size: gif.screenSize, limit: configuration.maxPixels)
        }
        let frame = try gif.firstFrame()
        let placement = try GIFPlacement(screen: gif.screenSize, frame: frame, file: file)
        try context.checkPixelLimit(placement.canvas)
        let uploadSize = placement.canvas.fitting(longEdge: configuration.maxEdge)
        let upload = try RowStreamUpload(
            context: context, sourceSize: placement.canvas, uploadSize: uploadSize,
            layout: frame.transparentIndex == nil && placement.coversCanvas ? .rgb : .rgba)
        let rows = GIFFrameRows(frame: frame, placement: placement, upload: upload, context: context)
        var linesRead: Int
        var isAnimated = false
        if frame.isInterlaced && placement.visible.height > 0 {
            linesRead = try rows.pushInterlaced(firstPass: gif) { () throws(ImagePrepError) in
                let again = try GIFFile(bytes, file: file)
                _ = try again.firstFrame()
                return again
            }
        } else {
            linesRead = try rows.pushInOrder(gif)
        }
        if linesRead == frame.size.height {
            isAnimated = gif.hasAnotherFrame()
        } else {
            guard linesRead > 0 else {
                throw .corruptGIF(file: file, detail: "its first frame's image data cannot be read")
            }
            let missing = "its first frame's image data stops after \(linesRead) of its \(frame.size.height) lines"
            guard configuration.acceptsIncompleteData else { throw .incompleteImageData(file: file, detail: missing) }
            warnings.append(
                PhotoWarning(.incompleteImageData, "\(missing); the rest repeats the last line decoded."))
            linesRead = frame.size.height
        }
        upload.fillRemainingRows()
        if isAnimated {
            warnings.append(
                PhotoWarning(.animation, "the GIF is animated; only its first frame is carried, as a viewer shows it."))
        }
        timings.decode += clock.now - start
        workspace.lastDecode = .init(size: placement.canvas, isStripWise: true)
        return DecodedPhoto(
            metadata: PhotoMetadata(originalSize: placement.canvas), uploadSize: uploadSize,
            extent: (Double(uploadSize.width), Double(uploadSize.height)), uploadSegments: [], comments: [],
            stripUpload: upload.finish())
    }
}
