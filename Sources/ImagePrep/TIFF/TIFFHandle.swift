internal import CTIFF

/// libtiff's handle on a file's bytes in memory, with exactly one owner; what libtiff reported
/// while reading is in `report`, never on stderr.
struct TIFFHandle: ~Copyable {
    let tiff: OpaquePointer
    private let source: UnsafeMutablePointer<ctiff_source>

    /// Each allocation libtiff makes for one strip, tile or tag array is refused above this.
    static let maxSingleAllocation = 128 << 20

    /// libtiff's process-wide handlers print to stderr; the few messages that have no handle reach them.
    private static let silenced: Void = ctiff_silence_global_handlers()

    /// Opens the bytes and reads the first directory.
    ///
    /// - Throws: `.corruptTIFF` when libtiff cannot read the first directory.
    init(_ bytes: UnsafeRawBufferPointer, file: String) throws(ImagePrepError) {
        _ = Self.silenced
        source = .allocate(capacity: 1)
        source.initialize(to: ctiff_source())
        source.pointee.bytes = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        source.pointee.size = UInt64(bytes.count)
        guard let tiff = ctiff_open(source, tmsize_t(Self.maxSingleAllocation)) else {
            let problem = TIFFHandle.problem(source.pointee)
            source.deallocate()
            throw .corruptTIFF(file: file, detail: problem)
        }
        self.tiff = tiff
    }

    deinit {
        TIFFClose(tiff)
        source.deallocate()
    }

    /// How many errors libtiff has reported so far.
    var errorCount: Int { Int(source.pointee.errors) }

    /// What libtiff's first error was about, in our words.
    var problem: String { Self.problem(source.pointee) }

    private static func problem(_ report: ctiff_source) -> String {
        if report.memoryLimitHit != 0 {
            return "a strip, tile or tag declares more data than the limit of \(maxSingleAllocation >> 20) MB for one"
        }
        let module = withUnsafeBytes(of: report.firstErrorModule) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if module.isEmpty { return "libtiff could not read its structure" }
        if module.contains("Directory") || module.contains("DirEntry") || module == "TIFFClientOpenExt" {
            return "its directory of tags is damaged"
        }
        if ["Decode", "LZW", "ZIP", "JPEG", "PackBits", "Predictor", "Fill", "ReadEncoded", "ReadRaw", "Tile", "Strip"]
            .contains(where: module.contains)
        {
            return "its compressed image data is damaged"
        }
        return "libtiff could not read it (in \(module))"
    }

    func u16(_ tag: Int32, defaulted: Bool = true) -> UInt16? {
        var value: UInt16 = 0
        let found =
            defaulted ? ctiff_get_u16_defaulted(tiff, UInt32(tag), &value) : ctiff_get_u16(tiff, UInt32(tag), &value)
        return found == 1 ? value : nil
    }

    func u32(_ tag: Int32) -> UInt32? {
        var value: UInt32 = 0
        return ctiff_get_u32(tiff, UInt32(tag), &value) == 1 ? value : nil
    }
}
