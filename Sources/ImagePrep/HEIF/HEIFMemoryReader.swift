internal import CHeif

/// The photo's bytes as libheif reads them through a `heif_reader`, which, unlike
/// `heif_context_read_from_memory_without_copy`, lets a prepare stop libheif's decode: once the
/// cancel is raised, `wait_for_file_size` answers that the data lies past the end of the file,
/// and libheif 1.15 asks it before it reads each item's data, so a grid's decode fails at its
/// next tile (and the gain map's at its first), with an error the pipeline then reports as the
/// cancel. Until then it reads exactly as the memory reader does.
///
/// It must outlive the context that reads through it (`HEIFContext` owns both); libheif keeps
/// `readerTable`'s address, so it lives in memory of its own.
final class HEIFMemoryReader {
    private let bytes: UnsafeRawBufferPointer
    private let cancellation: PreparationCancellation
    private var position = 0
    let readerTable: UnsafeMutablePointer<heif_reader>

    /// - Parameter bytes: the photo, which must outlive the reader.
    init(_ bytes: UnsafeRawBufferPointer, cancellation: PreparationCancellation) {
        self.bytes = bytes
        self.cancellation = cancellation
        readerTable = .allocate(capacity: 1)
        readerTable.initialize(
            to: heif_reader(
                reader_api_version: 1,
                get_position: { userdata in Int64(HEIFMemoryReader.from(userdata).position) },
                read: { data, size, userdata in HEIFMemoryReader.from(userdata).read(into: data, count: size) },
                seek: { position, userdata in HEIFMemoryReader.from(userdata).seek(to: position) },
                wait_for_file_size: { size, userdata in HEIFMemoryReader.from(userdata).answer(forSize: size) }))
    }

    deinit {
        readerTable.deinitialize(count: 1)
        readerTable.deallocate()
    }

    /// The `userdata` libheif hands back to the calls: this reader, unretained (the context that
    /// calls them is freed before it).
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> HEIFMemoryReader {
        Unmanaged<HEIFMemoryReader>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private func read(into data: UnsafeMutableRawPointer?, count: Int) -> Int32 {
        guard count >= 0, position <= bytes.count, count <= bytes.count - position else { return 1 }
        guard count > 0 else { return 0 }
        guard let data, let base = bytes.baseAddress else { return 1 }
        data.copyMemory(from: base + position, byteCount: count)
        position += count
        return 0
    }

    private func seek(to target: Int64) -> Int32 {
        guard target >= 0, target <= Int64(bytes.count) else { return 1 }
        position = Int(target)
        return 0
    }

    private func answer(forSize size: Int64) -> heif_reader_grow_status {
        if cancellation.isRaised { return heif_reader_grow_status_size_beyond_eof }
        return size <= Int64(bytes.count)
            ? heif_reader_grow_status_size_reached : heif_reader_grow_status_size_beyond_eof
    }
}
