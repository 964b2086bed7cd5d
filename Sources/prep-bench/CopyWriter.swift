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
        let temporary = "\(path).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        let failure: Int32? = data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = Platform.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0, errno == EINTR { continue }
                if count < 0 { return errno }
                written += count
            }
            return nil
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw .cannotWrite(path: path, reason: String(cString: strerror(failure)))
        }
        guard rename(temporary, path) == 0 else {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
