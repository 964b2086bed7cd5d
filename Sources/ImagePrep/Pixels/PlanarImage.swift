/// One plane of 8-bit samples (Y, Cb, Cr or gray) that owns its memory.
///
/// Planes are reused from photo to photo: `reshape` only reallocates when the new size needs more
/// memory than the plane already holds, so a batch worker stops allocating after its first photo.
final class PixelPlane {
    private(set) var width = 0
    private(set) var height = 0
    /// Nil until the plane is first sized, and after its memory is given back.
    private var memory: PageMemory?
    /// The first sample of the first row.
    private(set) var pixels = PixelPlane.nowhere
    private var capacity = 0

    /// Where a plane of no pixels points: never read or written, since it has no rows.
    nonisolated(unsafe) private static let nowhere = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    /// Makes the plane `width` x `height` (rows are `width` bytes apart); the contents are undefined.
    ///
    /// - Throws: `PageMemory.Shortage` when the system will not give the memory; the plane is
    ///   then empty.
    func reshape(width: Int, height: Int) throws(PageMemory.Shortage) {
        let (needed, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow else { throw PageMemory.Shortage(byteCount: Int.max) }
        if needed > capacity {
            releaseMemory()
            let fresh = try PageMemory(byteCount: needed)
            pixels = fresh.bytes
            capacity = fresh.byteCount
            memory = consume fresh
        }
        self.width = width
        self.height = height
    }

    /// Gives the memory back to the system; the next `reshape` allocates afresh.
    func releaseMemory() {
        memory = nil
        pixels = Self.nowhere
        capacity = 0
        width = 0
        height = 0
    }

    /// The first sample of row `y`.
    @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { pixels + y * width }

    /// Replaces every sample, padding too, by its entry in `table` (256 entries): the padding
    /// then maps as the edge it copies does.
    func map(through table: [UInt8]) {
        precondition(table.count == 256, "a table for every 8-bit sample")
        table.withUnsafeBufferPointer { table in
            for y in 0..<height {
                let row = row(y)
                for x in 0..<width { row[x] = table[Int(row[x])] }
            }
        }
    }

    /// Copies the last real column and row into the padding that TurboJPEG's planar format
    /// asks for when a subsampled image has an odd size, so that the padding encodes as an
    /// invisible continuation of the edge instead of noise.
    func replicateEdges(fromWidth realWidth: Int, height realHeight: Int) {
        if realWidth < width {
            for y in 0..<realHeight {
                let row = row(y)
                for x in realWidth..<width { row[x] = row[realWidth - 1] }
            }
        }
        for y in realHeight..<height { row(y).update(from: row(realHeight - 1), count: width) }
    }
}

/// How the chroma planes of an image are subsampled relative to luma.
struct ChromaSubsampling: Equatable, Sendable {
    /// Luma columns per chroma column (1, 2 or 4).
    let horizontal: Int
    /// Luma rows per chroma row (1 or 2).
    let vertical: Int

    static let full = ChromaSubsampling(horizontal: 1, vertical: 1)
    /// 4:2:0, what every copy we write uses: half the chroma samples across and down.
    static let quarter = ChromaSubsampling(horizontal: 2, vertical: 2)
}

/// A decoded image as planes: one gray plane, or Y, Cb and Cr planes (JPEG's full-range
/// BT.601 YCbCr), as TurboJPEG's planar ("YUV") functions read and write them.
///
/// `size` is the real image size; a luma plane may be up to one subsampling factor larger
/// (TurboJPEG pads odd sizes), and each chroma plane is the padded luma size divided by the
/// subsampling factors.
final class PlanarImage {
    private(set) var size = PixelSize(width: 0, height: 0)
    private(set) var subsampling = ChromaSubsampling.full
    private(set) var isGray = false
    let planes = [PixelPlane(), PixelPlane(), PixelPlane()]

    /// The picture's extent in pixels: its size, for an image that no DCT scale rounded.
    var extent: (width: Double, height: Double) { (Double(size.width), Double(size.height)) }

    /// The planes in use: one for gray, three for colour.
    var activePlanes: ArraySlice<PixelPlane> { planes.prefix(isGray ? 1 : 3) }

    /// Lays the planes out for an image of `size`, reusing their memory where it suffices.
    ///
    /// - Throws: `.outOfMemory` naming `file` when the system will not give the memory.
    func reshape(size: PixelSize, isGray: Bool, subsampling: ChromaSubsampling, file: String)
        throws(ImagePrepError)
    {
        self.size = size
        self.isGray = isGray
        self.subsampling = isGray ? .full : subsampling
        let s = self.subsampling
        let lumaWidth = (size.width + s.horizontal - 1) / s.horizontal * s.horizontal
        let lumaHeight = (size.height + s.vertical - 1) / s.vertical * s.vertical
        do {
            try planes[0].reshape(width: lumaWidth, height: lumaHeight)
            if !isGray {
                for plane in planes[1...] {
                    try plane.reshape(width: lumaWidth / s.horizontal, height: lumaHeight / s.vertical)
                }
            }
        } catch {
            releaseMemory()
            throw .outOfMemory(file: file, byteCount: error.byteCount)
        }
    }

    /// Gives the planes' memory back to the system.
    func releaseMemory() {
        for plane in planes { plane.releaseMemory() }
        size = PixelSize(width: 0, height: 0)
    }

    /// Fills the luma plane's padding from its last real column and row.
    func replicateLumaEdges() {
        planes[0].replicateEdges(fromWidth: size.width, height: size.height)
    }

    /// The sample a decoder's missing pixels get: mid grey in Y, Cb and Cr, as libjpeg decodes
    /// data that is not there (all coefficients zero). What `--accept-incomplete` documents.
    static let missingSample: UInt8 = 128

    /// Fills every row from `firstRow` down (in image rows; a chroma row once none of the image
    /// rows it covers was written) with `missingSample`, so that rows a decoder did not write
    /// never show what the planes held before (a reused workspace holds the previous photo).
    func fillRows(from firstRow: Int) {
        // Rows past the image's own are padding, which the decoder fills from the edge.
        guard firstRow < size.height else { return }
        for (index, plane) in activePlanes.enumerated() {
            let factor = index == 0 ? 1 : subsampling.vertical
            let first = min((max(firstRow, 0) + factor - 1) / factor, plane.height)
            guard first < plane.height else { continue }
            plane.row(first).update(repeating: Self.missingSample, count: (plane.height - first) * plane.width)
        }
    }
}
