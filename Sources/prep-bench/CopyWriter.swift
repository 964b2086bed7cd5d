import Foundation
import ImagePrep

/// Writes a prepared photo's copies as `prep-photo` does (NAME.jpg, NAME.display.jpg,
/// NAME.thumb.jpg; each into a temporary file renamed into place), so that the in-process "write"
/// stage costs what the command's writing costs.
///
/// prep-photo's own writer lives in the command's target, not in the library, so the benchmark
/// carries this small equivalent.
enum CopyWriter {
    /// Writes every copy of `photo` into `folder` under `stem`.
    ///
    /// - Returns: the bytes of all copies together.
    @discardableResult
    static func write(_ photo: PreparedPhoto, stem: String, into folder: String) throws(BenchError) -> Int {
        let copies: [(EncodedJPEG?, String)] = [
            (photo.upload, ".jpg"), (photo.display, ".display.jpg"), (photo.thumbnail, ".thumb.jpg"),
        ]
        var total = 0
        for case (let copy?, let suffix) in copies {
            try write(copy.data, to: "\(folder)/\(stem)\(suffix)")
            total += copy.data.count
        }
        return total
    }

    private static func write(_ data: Data, to path: String) throws(BenchError) {
        let temporary = "\(path).\(ProcessInfo.processInfo.processIdentifier).tmp"
        do throws(SystemError) {
            let descriptor = try FileCalls.createOrEmpty(temporary, permissions: 0o644)
            let written = data.withUnsafeBytes { bytes in
                Result { () throws(SystemError) in try FileCalls.writeAll(bytes, to: descriptor, path: temporary) }
            }
            _ = Platform.close(descriptor)
            if case .failure = written { try? FileCalls.remove(temporary) }
            try written.get()
            try FileCalls.rename(temporary, to: path)
        } catch {
            throw .cannotWrite(path: path, reason: error.reason)
        }
    }
}
