/// What ImagePrep reads from a PNG's chunk list itself, up to the first IDAT: the IHDR's size
/// as declared, and whether the file is an APNG (libspng 0.7 knows nothing of acTL and fcTL).
///
/// Only lengths and types are read, each within the file, so a walk costs one step a chunk.
struct PNGChunkWalk {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The IHDR's width and height as written, when the file is long enough to hold them.
    private(set) var declaredSize: PixelSize?
    /// The frame count acTL gives (0 when it says so), or nil for a still PNG.
    private(set) var animationFrames: UInt32?
    /// Whether an fcTL comes before the first IDAT: the default image is then the animation's first frame.
    private(set) var isDefaultImageAFrame = false

    init(_ bytes: UnsafeRawBufferPointer) {
        let reader = ByteReader(bytes)
        if let width = reader.uint32(at: 16), let height = reader.uint32(at: 20) {
            declaredSize = PixelSize(width: Int(width), height: Int(height))
        }
        var offset = Self.signature.count
        while let length = reader.uint32(at: offset).map(Int.init), let type = reader.uint32(at: offset + 4) {
            let data = offset + 8
            switch type {
            case Self.idat: return
            case Self.acTL where length >= 8: animationFrames = reader.uint32(at: data) ?? animationFrames
            case Self.fcTL where animationFrames != nil: isDefaultImageAFrame = true
            default: break
            }
            // Length, type, data, CRC; a length past the end ends the walk.
            let (next, overflow) = data.addingReportingOverflow(length + 4)
            guard !overflow, next > offset else { return }
            offset = next
        }
    }

    private static let idat: UInt32 = 0x4944_4154
    private static let acTL: UInt32 = 0x6163_544C
    private static let fcTL: UInt32 = 0x6663_544C
}
