internal import CWebP

/// A WebP's first frame decoded by libwebp at the size the upload needs (its own scaling, when
/// the canvas is larger than the upload) into the workspace's scratch, then pushed as canvas
/// rows: the frame at its place, transparent around it. The decoded pixels are never more than
/// the upload's.
///
/// A frame cut short or damaged partway gives the rows libwebp's incremental decoder decoded
/// before it stopped, the rest repeating the last of them, with a warning that says how many
/// there are (`acceptsIncompleteData`, as for a JPEG; refused with `.incompleteImageData` when off).
struct WebPDecoding {
    let frame: WebPContainer.Frame
    let context: PreparationContext
    /// The canvas at the size decoded: the upload's.
    let decodedCanvas: PixelSize
    /// The frame's place on `decodedCanvas`, scaled as the canvas is.
    let left: Int
    let top: Int
    let decodedFrame: PixelSize

    init(canvas: PixelSize, frame: WebPContainer.Frame, uploadSize: PixelSize, context: PreparationContext) {
        self.frame = frame
        self.context = context
        decodedCanvas = uploadSize
        func scaled(_ start: Int, _ length: Int, _ from: Int, _ to: Int) -> (Int, Int) {
            guard from != to else { return (min(start, to - 1), max(1, min(length, to - start))) }
            let scale = Double(to) / Double(from)
            let end = min(to, Int((Double(start + length) * scale).rounded()))
            let first = min(max(0, Int((Double(start) * scale).rounded())), max(0, end - 1), to - 1)
            return (first, max(1, end - first))
        }
        let x = scaled(frame.left, frame.size.width, canvas.width, uploadSize.width)
        let y = scaled(frame.top, frame.size.height, canvas.height, uploadSize.height)
        (left, top, decodedFrame) = (x.0, y.0, PixelSize(width: x.1, height: y.1))
    }

    /// Whether the frame covers the whole canvas, which then has no pixel of background.
    var coversCanvas: Bool { left == 0 && top == 0 && decodedFrame == decodedCanvas }

    /// Decodes the frame and pushes the canvas into a new upload.
    ///
    /// - Parameter hasAlpha: whether the file has alpha (or is animated, whose canvas may).
    /// - Returns: the upload's planes.
    func pushRows(hasAlpha: Bool) throws(ImagePrepError) -> PlanarImage {
        let file = context.file
        let layout: RowStreamUpload.PixelLayout = hasAlpha || !coversCanvas ? .rgba : .rgb
        let stride = decodedFrame.width * layout.rawValue
        let scratch = context.workspace.scratch
        scratch.reserve(stride * decodedFrame.height)
        var config = WebPDecoderConfig()
        guard cwebp_init_config(&config) != 0 else {
            throw .corruptWebP(file: file, detail: "this libwebp is not the version ImagePrep was built with")
        }
        if decodedFrame != frame.size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(decodedFrame.width)
            config.options.scaled_height = Int32(decodedFrame.height)
        }
        config.options.use_threads = context.configuration.splitsWorkAcrossCores ? 1 : 0
        config.output.colorspace = layout == .rgba ? MODE_RGBA : MODE_RGB
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = scratch.pointer
        config.output.u.RGBA.stride = Int32(stride)
        config.output.u.RGBA.size = stride * decodedFrame.height
        try context.cancellation.check(file: file)
        let rowsDecoded = try decode(&config)
        try context.cancellation.check(file: file)
        if rowsDecoded < decodedFrame.height {
            let rows = rowsDecoded * frame.size.height / decodedFrame.height
            let missing =
                frame.isComplete
                ? "its image data is damaged after \(rows) of its \(frame.size.height) rows"
                : "the file ends after \(rows) of its \(frame.size.height) rows of image data"
            guard context.configuration.acceptsIncompleteData else {
                throw .incompleteImageData(file: file, detail: missing)
            }
            context.warnings.append(
                PhotoWarning(.incompleteImageData, "\(missing); the rest repeats the last row decoded."))
            let last = scratch.pointer + (rowsDecoded - 1) * stride
            for row in rowsDecoded..<decodedFrame.height {
                (scratch.pointer + row * stride).update(from: last, count: stride)
            }
        }

        let upload = try RowStreamUpload(
            context: context, sourceSize: decodedCanvas, uploadSize: decodedCanvas, layout: layout)
        let rowBytes = decodedCanvas.width * layout.rawValue
        let canvasRow = GrowableBuffer<UInt8>()
        canvasRow.reserve(rowBytes)
        canvasRow.pointer.initialize(repeating: 0, count: rowBytes)
        for y in 0..<decodedCanvas.height {
            let frameRow = y - top
            guard (0..<decodedFrame.height).contains(frameRow) else {
                canvasRow.pointer.update(repeating: 0, count: rowBytes)
                upload.push(UnsafePointer(canvasRow.pointer))
                continue
            }
            let decoded = scratch.pointer + frameRow * stride
            if coversCanvas {
                upload.push(UnsafePointer(decoded))
            } else {
                canvasRow.pointer.update(repeating: 0, count: rowBytes)
                (canvasRow.pointer + left * layout.rawValue).update(
                    from: decoded, count: min(stride, rowBytes - left * layout.rawValue))
                upload.push(UnsafePointer(canvasRow.pointer))
            }
        }
        return upload.finish()
    }

    /// Decodes the frame into `config`'s output and says how many of its rows are there: all of
    /// them, or, for a bitstream cut short or damaged partway, the ones libwebp's incremental
    /// decoder gave before it stopped (at least one, or the decode is refused).
    private func decode(_ config: inout WebPDecoderConfig) throws(ImagePrepError) -> Int {
        let file = context.file
        let bitstream = frame.bitstream.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if frame.isComplete {
            let status = WebPDecode(bitstream, frame.bitstream.count, &config)
            WebPFreeDecBuffer(&config.output)  // The pixels are the scratch's; this frees libwebp's own state only.
            if status == VP8_STATUS_OK { return decodedFrame.height }
            guard status == VP8_STATUS_BITSTREAM_ERROR || status == VP8_STATUS_NOT_ENOUGH_DATA else {
                throw Self.error(status, file: file)
            }
        }
        guard let decoder = WebPIDecode(nil, 0, &config) else { throw .outOfMemory(file: file, byteCount: Int.max) }
        defer { WebPIDelete(decoder) }
        let status = WebPIUpdate(decoder, bitstream, frame.bitstream.count)
        if status == VP8_STATUS_OK { return decodedFrame.height }
        var lastRow: Int32 = 0
        _ = WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil)
        guard status == VP8_STATUS_SUSPENDED || status == VP8_STATUS_BITSTREAM_ERROR, lastRow > 0 else {
            throw Self.error(status == VP8_STATUS_SUSPENDED ? VP8_STATUS_NOT_ENOUGH_DATA : status, file: file)
        }
        return min(Int(lastRow), decodedFrame.height)
    }

    /// libwebp's status in our words.
    static func error(_ status: VP8StatusCode, file: String) -> ImagePrepError {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: .outOfMemory(file: file, byteCount: Int.max)
        case VP8_STATUS_NOT_ENOUGH_DATA: .corruptWebP(file: file, detail: "it ends before its image data does")
        case VP8_STATUS_UNSUPPORTED_FEATURE: .corruptWebP(file: file, detail: "it uses a feature libwebp cannot decode")
        default: .corruptWebP(file: file, detail: "its header or image data cannot be decoded")
        }
    }
}
