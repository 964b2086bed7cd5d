internal import CJPEG

/// A YCbCr or gray JPEG decoded through libjpeg's own API one strip at a time (an iMCU row: 8 or
/// 16 rows of luma at full size), each strip's rows handed on as they come, so that the image
/// never exists at full size: the resampler makes the upload copy from the rows while they are
/// still in cache. Only a few strips (50–100 KB each at 12 MP) are ever held: one, or up to
/// `slotCount` (16) when one thread decodes the next strips while another resamples the earlier
/// ones.
///
/// libjpeg reports a fatal error by `longjmp`; every call that can make one is a C function in
/// `CJPEG`'s shim that sets its own `setjmp`, so no `longjmp` crosses a Swift frame. Warnings
/// are counted, never printed: the pipeline decodes a photo that had any the way it always did
/// (`JPEGDecoder`), which says what was lost in our words.
struct JPEGStripDecoder: ~Copyable {
    private let handle: UnsafeMutablePointer<cjpeg_strip_decoder>

    /// One component as the strips hold it: samples across and rows down at the decode's scale,
    /// its rows in one strip, and how many of its samples one output pixel spans across and down
    /// (1 for luma; 1/2 for 4:2:0 chroma at full size, but 1 at 1/8, which libjpeg-turbo
    /// decodes at a larger scale than the luma instead of upsampling it).
    struct Component: Sendable {
        let size: PixelSize
        let stripRows: Int
        let samplesPerPixel: (horizontal: Double, vertical: Double)
    }

    /// One decoded strip: which slot holds it, and the first output row it spans.
    struct Strip: Sendable {
        let slot: Int
        let firstRow: Int
        /// Output rows the strip spans (the last may reach past the image's end).
        let rows: Int
    }

    /// How many strips the decoder can hold at once.
    static let slotCount = Int(CJPEG_STRIP_SLOTS)

    /// The output size and each component's shape, once started.
    private(set) var size = PixelSize(width: 0, height: 0)
    private(set) var components: [Component] = []

    /// Headers the decoder was given to keep (`start(head:tail:)`), freed after libjpeg.
    private var ownedHead: UnsafeMutableRawBufferPointer?

    init(file: String) throws(ImagePrepError) {
        guard let handle = cjpeg_strip_decoder_create() else {
            throw .corruptJPEG(file: file, detail: "libjpeg-turbo could not start a decompressor")
        }
        self.handle = handle
    }

    deinit {
        cjpeg_strip_decoder_destroy(handle)
        ownedHead?.deallocate()
    }

    /// Reads the headers and starts the decode at 1/`scaleDenominator`, with room for `slots`
    /// strips (1 to `slotCount`).
    ///
    /// - Returns: false when the photo is not YCbCr or gray with chroma once per MCU, or libjpeg
    ///   stopped in its headers (or, for a progressive file, in its scans).
    mutating func start(_ bytes: UnsafeRawBufferPointer, scaleDenominator: Int, slots: Int = 1) -> Bool {
        start(bytes, tail: nil, scaleDenominator: scaleDenominator, slots: slots)
    }

    /// Starts on a JPEG in two parts: a copy of `head`, which the decoder keeps, then `tail`,
    /// which must outlive the decoder (the bottom of a `RestartSplit`).
    mutating func start(head: [UInt8], tail: UnsafeRawBufferPointer, scaleDenominator: Int) -> Bool {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(head.count, 1), alignment: 1)
        copy.copyBytes(from: head)
        ownedHead = copy
        return start(
            UnsafeRawBufferPointer(rebasing: copy[0..<head.count]), tail: tail, scaleDenominator: scaleDenominator,
            slots: 1)
    }

    private mutating func start(
        _ bytes: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer?, scaleDenominator: Int, slots: Int
    ) -> Bool {
        let tailStart = tail?.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard tail == nil || tailStart != nil else { return false }
        let status = cjpeg_strip_decoder_start(
            handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), tailStart,
            UInt(tail?.count ?? 0), Int32(scaleDenominator), DamageSurvey.scanLimit,
            Int32(min(max(slots, 1), Self.slotCount)))
        guard status == 0, !hasComplained else { return false }
        var width: UInt32 = 0
        var height: UInt32 = 0
        var count: Int32 = 0
        cjpeg_strip_decoder_size(handle, &width, &height, &count)
        size = PixelSize(width: Int(width), height: Int(height))
        let luma = cjpeg_strip_decoder_component(handle, 0)
        components = (0..<count).map { index in
            let shape = cjpeg_strip_decoder_component(handle, index)
            return Component(
                size: PixelSize(width: Int(shape.width), height: Int(shape.height)), stripRows: Int(shape.stripRows),
                samplesPerPixel: (
                    Double(shape.horizontalScale) / Double(luma.horizontalScale),
                    Double(shape.verticalScale) / Double(luma.verticalScale)
                ))
        }
        return true
    }

    /// Decodes the next strip into `slot`, overwriting what it held.
    ///
    /// - Returns: nil when every row is delivered, or libjpeg stopped or warned.
    func read(into slot: Int) -> Strip? {
        let firstRow = Int(handle.pointee.info.output_scanline)
        let rows = Int(cjpeg_strip_decoder_read(handle, Int32(slot)))
        guard rows > 0, !hasComplained else { return nil }
        return Strip(slot: slot, firstRow: firstRow, rows: rows)
    }

    /// Hands each row of `strip` that lies inside its component to `body`, with the row's index
    /// in the component.
    func rows(of strip: Strip, _ body: (_ component: Int, _ row: UnsafePointer<UInt8>, _ index: Int) -> Void) {
        slots.rows(of: strip, body)
    }

    /// The slots' rows, for a thread that resamples strips while this one decodes the next.
    var slots: Slots { Slots(handle: handle, components: components) }

    /// Read access to the decoded strips. It reads only the slot asked for and the components'
    /// shapes, so one thread may use it while another decodes into a different slot; it must
    /// not outlive the decoder.
    struct Slots: @unchecked Sendable {
        fileprivate let handle: UnsafeMutablePointer<cjpeg_strip_decoder>
        let components: [Component]

        /// Hands each row of `strip` that lies inside its component to `body`, with the row's
        /// index in the component. The rows stay valid until the slot is read into again.
        func rows(of strip: Strip, _ body: (_ component: Int, _ row: UnsafePointer<UInt8>, _ index: Int) -> Void) {
            for (index, component) in components.enumerated() {
                // A strip holds `stripRows` of every component over `rows` output rows.
                let first = strip.firstRow / strip.rows * component.stripRows
                for row in 0..<max(0, min(component.stripRows, component.size.height - first)) {
                    body(
                        index, cjpeg_strip_decoder_row(handle, Int32(strip.slot), Int32(index), Int32(row))!,
                        first + row)
                }
            }
        }
    }

    /// Whether every output row came, and what follows the image data reads without a warning,
    /// as a whole decode would check.
    func finish() -> Bool {
        handle.pointee.info.output_scanline >= handle.pointee.info.output_height && !hasComplained
            && cjpeg_strip_decoder_finish(handle) == 0 && !hasComplained
    }

    /// Whether libjpeg warned or stopped: then the photo is decoded again the way that reports it.
    private var hasComplained: Bool {
        handle.pointee.report.warningCount > 0 || handle.pointee.report.fatal.code >= 0
            || handle.pointee.report.exceededScanLimit != 0
    }
}
