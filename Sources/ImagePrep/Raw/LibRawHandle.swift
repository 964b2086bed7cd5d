internal import CRaw

/// LibRaw's handle on a raw file's bytes in memory, with exactly one owner; what LibRaw reports
/// about the data is counted in `report`, never printed.
struct LibRawHandle: ~Copyable {
    let raw: UnsafeMutablePointer<libraw_data_t>
    let report: UnsafeMutablePointer<craw_report>

    /// Opens `bytes` and reads the file's structure (sizes, tags, where the data is), no pixels.
    ///
    /// - Throws: `.corruptRaw` when LibRaw does not know the file or cannot read its structure.
    init(_ bytes: UnsafeRawBufferPointer, file: String) throws(ImagePrepError) {
        let report = UnsafeMutablePointer<craw_report>.allocate(capacity: 1)
        report.initialize(to: craw_report())
        // LibRaw's object holds its loaders' state (the Panasonic loader's bit buffer among it),
        // which its constructor leaves as malloc gave it: cleared, like the raw buffer.
        guard let raw = FreshMemory.filled({ craw_open(report) }) else {
            report.deallocate()
            throw .outOfMemory(file: file, byteCount: 0)
        }
        let status = libraw_open_buffer(raw, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
        guard status == LIBRAW_SUCCESS.rawValue else {
            libraw_close(raw)
            report.deallocate()
            throw .corruptRaw(file: file, detail: Self.reason(status))
        }
        self.raw = raw
        self.report = report
    }

    deinit {
        libraw_close(raw)
        report.deallocate()
    }

    /// LibRaw's error code in our words.
    static func reason(_ status: Int32) -> String {
        switch status {
        case LIBRAW_FILE_UNSUPPORTED.rawValue: "LibRaw does not know this camera's format"
        case LIBRAW_UNSUFFICIENT_MEMORY.rawValue, LIBRAW_MEMPOOL_OVERFLOW.rawValue:
            "LibRaw would need more memory than it allows itself"
        case LIBRAW_DATA_ERROR.rawValue, LIBRAW_IO_ERROR.rawValue: "its raw data is damaged or cut short"
        case LIBRAW_CANCELLED_BY_CALLBACK.rawValue: "its decode was cancelled"
        case LIBRAW_REQUEST_FOR_NONEXISTENT_IMAGE.rawValue, LIBRAW_NO_THUMBNAIL.rawValue:
            "it holds no image LibRaw can read"
        default: "LibRaw could not read its structure"
        }
    }
}
