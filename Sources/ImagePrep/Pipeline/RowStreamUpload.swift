/// The upload made from a decoder's rows as they come, top to bottom: each row of interleaved
/// 8-bit samples is composited over the configured background where it has alpha, converted to
/// JPEG's YCbCr and pushed into the resamplers, so that no full-size picture is ever held (a
/// row of each plane and the resamplers' rings, whatever the picture's height).
///
/// The formats whose libraries decode a row or a band at a time (PNG, GIF, WebP, TIFF, ...) go
/// through it; a source at a reduced size (a decoder's own scaling) pushes its reduced rows.
final class RowStreamUpload {
    /// What a pushed row holds, by samples a pixel.
    enum PixelLayout: Int {
        case gray = 1
        case grayAlpha = 2
        case rgb = 3
        case rgba = 4

        var isGray: Bool { rawValue <= 2 }
    }

    let sourceSize: PixelSize
    let uploadSize: PixelSize
    let layout: PixelLayout
    private let target: PlanarImage
    private let resamplers: ArraySlice<Resampler>
    private let background: [UInt8]
    /// One converted row of each plane.
    private let planeRows: [GrowableBuffer<UInt8>]
    /// The next source row to push.
    private(set) var nextRow = 0

    /// Starts the upload of a `sourceSize` picture at `uploadSize` in the context's upload planes.
    ///
    /// - Throws: `.outOfMemory` when the system will not give the upload's planes.
    init(
        context: PreparationContext, sourceSize: PixelSize, uploadSize: PixelSize, layout: PixelLayout
    ) throws(ImagePrepError) {
        self.sourceSize = sourceSize
        self.uploadSize = uploadSize
        self.layout = layout
        target = context.workspace.upload
        try target.reshape(size: uploadSize, isGray: layout.isGray, subsampling: .quarter, file: context.file)
        let color = context.configuration.background
        background = [color.red, color.green, color.blue]
        let planeCount = layout.isGray ? 1 : 3
        resamplers = context.workspace.stripResamplers.prefix(planeCount)
        planeRows = (0..<planeCount).map { _ in
            let row = GrowableBuffer<UInt8>()
            row.reserve(sourceSize.width)
            return row
        }
        for (index, resampler) in resamplers.enumerated() {
            let factor = index == 0 ? ChromaSubsampling.full : target.subsampling
            let size = PixelSize(
                width: (uploadSize.width + factor.horizontal - 1) / factor.horizontal,
                height: (uploadSize.height + factor.vertical - 1) / factor.vertical)
            resampler.start(
                sourceSize: sourceSize, into: target.planes[index], size: size,
                scaleX: Double(sourceSize.width) / Double(uploadSize.width) * Double(factor.horizontal),
                scaleY: Double(sourceSize.height) / Double(uploadSize.height) * Double(factor.vertical),
                rows: 0..<size.height)
        }
    }

    /// Whether the resamplers still need rows: false once every upload row is made, so that a
    /// decoder may stop reading what no row reads.
    var needsRows: Bool { !resamplers.allSatisfy(\.isFinished) && nextRow < sourceSize.height }

    /// Takes the next source row: `sourceSize.width` pixels of `layout`.
    func push(_ row: UnsafePointer<UInt8>) {
        guard nextRow < sourceSize.height else { return }
        let luma = planeRows[0].pointer
        let cb = layout.isGray ? luma : planeRows[1].pointer
        let cr = layout.isGray ? luma : planeRows[2].pointer
        PixelKernels.best.rowToYCbCr(
            row, width: sourceSize.width, channels: layout.rawValue, background: background, luma: luma, cb: cb, cr: cr)
        for (index, resampler) in resamplers.enumerated() {
            resampler.push(UnsafePointer(planeRows[index].pointer), at: nextRow)
        }
        nextRow += 1
    }

    /// Pushes copies of the last row pushed (or a mid-gray row when none was) until the picture
    /// is whole: for a decode that stopped short, whose missing part the source reports.
    func fillRemainingRows() {
        guard nextRow < sourceSize.height else { return }
        let width = sourceSize.width
        for (index, resampler) in resamplers.enumerated() {
            if nextRow == 0 { planeRows[index].pointer.initialize(repeating: 128, count: width) }
            var y = nextRow
            while y < sourceSize.height && !resampler.isFinished {
                resampler.push(UnsafePointer(planeRows[index].pointer), at: y)
                y += 1
            }
        }
        nextRow = sourceSize.height
    }

    /// The upload's planes, once every row is pushed; their padding copies the edges.
    func finish() -> PlanarImage {
        precondition(resamplers.allSatisfy(\.isFinished), "every row pushed before the upload is finished")
        for (index, plane) in target.activePlanes.enumerated() {
            let factor = index == 0 ? ChromaSubsampling.full : target.subsampling
            plane.replicateEdges(
                fromWidth: (uploadSize.width + factor.horizontal - 1) / factor.horizontal,
                height: (uploadSize.height + factor.vertical - 1) / factor.vertical)
        }
        return target
    }
}
