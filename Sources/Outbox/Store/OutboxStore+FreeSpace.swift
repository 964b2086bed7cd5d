import Foundation

/// The database gives back the space of what was deleted: a value cleared (a planted 200 MiB one
/// left a 200 MiB file for good) and the records of delivered entries.
///
/// SQLite keeps freed pages in the file for later rows. A store is made with
/// `auto_vacuum = INCREMENTAL` (set at every open, where it changes nothing until a `VACUUM`), so
/// that `PRAGMA incremental_vacuum` can hand free pages back to the file system a bounded number
/// at a time. Once the free pages pass a quarter of the file (and a mebibyte), each call gives
/// back at most `mostBytesGivenBackAtOnce`; in a store made before that, the first such call is
/// one `VACUUM`, whose cost is that of what the store holds, not of the file, and which switches
/// the incremental mode on. Both are transactions of their own, so a process killed during one
/// leaves the store as it was before it.
extension OutboxStore {
    /// The most bytes of free pages one call gives back: a few hundred milliseconds of a drain
    /// on a slow phone, the rest in the passes after it.
    static let mostBytesGivenBackAtOnce: Int64 = 32 * 1024 * 1024

    /// The least free space worth giving back.
    static let leastBytesGivenBack: Int64 = 1024 * 1024

    /// Gives free pages back to the file system when they pass a quarter of the file; see the
    /// extension. Best effort: a store busy with another process's write keeps its pages until
    /// the next call.
    ///
    /// - Returns: Whether it gave any back.
    @discardableResult
    func giveSpaceBack() -> Bool {
        guard let pageSize = integerPragma("page_size"), pageSize > 0, let pages = integerPragma("page_count"),
            let free = integerPragma("freelist_count"), free * pageSize >= Self.leastBytesGivenBack, free * 4 >= pages
        else { return false }
        do throws(OutboxError) {
            if integerPragma("auto_vacuum") == 2 {
                let step = max(1, Self.mostBytesGivenBackAtOnce / pageSize)
                _ = try database.query("PRAGMA incremental_vacuum(\(step))") { _ in () }
            } else {
                try database.run("VACUUM")
            }
            // The file shrinks when the log is copied back into it; one that readers still use
            // is copied at a later checkpoint.
            _ = try database.query("PRAGMA wal_checkpoint(PASSIVE)") { _ in () }
            return true
        } catch {
            return false
        }
    }

    private func integerPragma(_ name: String) -> Int64? {
        (try? database.query("PRAGMA \(name)") { $0.integer(at: 0) })?.first ?? nil
    }
}
