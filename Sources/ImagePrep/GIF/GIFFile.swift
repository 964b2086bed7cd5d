internal import CGIF

/// One giflib decoder over a GIF in memory: the handle and the reader giflib calls are its own,
/// closed and freed once. It walks the blocks up to the first frame, reads that frame a line at a
/// time (never `DGifSlurp`, which would hold every frame), and looks for a second frame.
struct GIFFile: ~Copyable {
    /// The first image descriptor and what its Graphic Control Extension said.
    struct Frame {
        var left: Int
        var top: Int
        var size: PixelSize
        var isInterlaced: Bool
        var transparentIndex: Int?
        /// 256 RGB triplets: the local colour table, else the global one; an index past the
        /// table's end is black, as browsers show it, and a GIF with no table at all is a gray ramp.
        var palette: [UInt8]
    }

    private let handle: UnsafeMutablePointer<GifFileType>
    private let memory: UnsafeMutablePointer<cgif_memory>
    private let file: String

    /// Opens the GIF and reads its logical screen descriptor; nothing is allocated for pixels.
    init(_ bytes: UnsafeRawBufferPointer, file: String) throws(ImagePrepError) {
        let memory = UnsafeMutablePointer<cgif_memory>.allocate(capacity: 1)
        memory.initialize(
            to: cgif_memory(
                bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count, offset: 0))
        var error: Int32 = 0
        guard let handle = cgif_open(memory, &error) else {
            memory.deallocate()
            throw .corruptGIF(file: file, detail: "its header or logical screen descriptor cannot be read")
        }
        self.handle = handle
        self.memory = memory
        self.file = file
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(handle, &error)
        memory.deallocate()
    }

    /// The logical screen's size, as the header declares it.
    var screenSize: PixelSize {
        PixelSize(width: Int(handle.pointee.SWidth), height: Int(handle.pointee.SHeight))
    }

    /// Walks the extensions up to the first image descriptor and reads it (with its local colour
    /// table); the walk is bounded by the file's bytes, each block taking at least one.
    func firstFrame() throws(ImagePrepError) -> Frame {
        var transparentIndex: Int?
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(handle, &type) == GIF_OK else {
                throw .corruptGIF(file: file, detail: "its blocks end or break before its first image")
            }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(handle) == GIF_OK else {
                    throw .corruptGIF(file: file, detail: "its first image descriptor cannot be read")
                }
                let image = handle.pointee.Image
                return Frame(
                    left: Int(image.Left), top: Int(image.Top),
                    size: PixelSize(width: Int(image.Width), height: Int(image.Height)),
                    isInterlaced: image.Interlace, transparentIndex: transparentIndex,
                    palette: Self.palette(image.ColorMap ?? handle.pointee.SColorMap))
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(handle, &code, &block) == GIF_OK else {
                    throw .corruptGIF(file: file, detail: "an extension block before its first image cannot be read")
                }
                // The Graphic Control Extension: length 4, flags, delay (2), transparent index.
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4 {
                    transparentIndex = block[1] & 1 == 1 ? Int(block[4]) : nil
                }
                try skipSubBlocks(after: block)
            case TERMINATE_RECORD_TYPE:
                throw .corruptGIF(file: file, detail: "it ends before any image")
            default:
                throw .corruptGIF(file: file, detail: "a block before its first image is of no known kind")
            }
        }
    }

    /// Reads the first frame's next line of `width` colour indices.
    func readLine(into line: UnsafeMutablePointer<UInt8>, width: Int) -> Bool {
        DGifGetLine(handle, line, Int32(width)) == GIF_OK
    }

    /// Whether another image descriptor follows the first frame, whose lines must all have been
    /// read: the extensions between are passed over unread, and no other frame is decoded, so a
    /// GIF of 100,000 frames costs one more block walk. Data that breaks after the first frame
    /// counts as none.
    func hasAnotherFrame() -> Bool {
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(handle, &type) == GIF_OK else { return false }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                return true
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(handle, &code, &block) == GIF_OK,
                    (try? skipSubBlocks(after: block)) != nil
                else { return false }
            default:
                return false
            }
        }
    }

    private func skipSubBlocks(after first: UnsafeMutablePointer<GifByteType>?) throws(ImagePrepError) {
        var block = first
        while block != nil {
            guard DGifGetExtensionNext(handle, &block) == GIF_OK else {
                throw .corruptGIF(file: file, detail: "an extension block is cut short")
            }
        }
    }

    private static func palette(_ map: UnsafeMutablePointer<ColorMapObject>?) -> [UInt8] {
        var palette = [UInt8](repeating: 0, count: 256 * 3)
        guard let map else {
            for index in 0..<256 {
                palette.replaceSubrange((index * 3)..<(index * 3 + 3), with: repeatElement(UInt8(index), count: 3))
            }
            return palette
        }
        palette.withUnsafeMutableBufferPointer { palette in
            for index in 0..<256 { _ = cgif_color(map, Int32(index), palette.baseAddress! + index * 3) }
        }
        return palette
    }
}
