import Foundation
import ImagePrep

/// How one output compares with the reference made at its own size.
struct QualityResult: Sendable, Codable {
    var width: Int
    var height: Int
    var byteCount: Int
    /// Mean SSIM-Y; nil when quality was skipped or the output matches no orientation.
    var ssim: Double?
    /// The EXIF orientation the reference was turned by (vipsthumbnail turns its output upright;
    /// ImagePrep's upload copy keeps the stored pixels).
    var orientation: Int?
}

/// Measures outputs against `LanczosReference`, choosing the orientation as quality.py does:
/// among "as stored" and the original's EXIF orientation, those whose aspect ratio matches the
/// output within 2 %, and of those the one with the higher SSIM.
enum QualityRun {
    /// For each photo, the quality of each tool's output (keyed as `outputs` is).
    ///
    /// - Parameter outputs: per photo path, tool name to output path.
    static func measure(
        _ photos: [BenchPhoto], outputs: [String: [String: String]], workers: Int, computesSSIM: Bool
    ) throws(BenchError) -> [String: [String: QualityResult]] {
        let results = Locked<[String: [String: QualityResult]]>([:])
        let firstFailure = Locked<BenchError?>(nil)
        ParallelWorkers.forEach(
            itemCount: photos.count, workers: workers, makeState: {},
            body: { _, index in
                let photo = photos[index]
                do throws(BenchError) {
                    let measured = try measure(photo, outputs: outputs[photo.path] ?? [:], computesSSIM: computesSSIM)
                    results.withLock { $0[photo.path] = measured }
                } catch {
                    firstFailure.withLock { $0 = $0 ?? error }
                }
            })
        if let failure = firstFailure.withLock({ $0 }) { throw failure }
        return results.withLock { $0 }
    }

    private static func measure(
        _ photo: BenchPhoto, outputs: [String: String], computesSSIM: Bool
    ) throws(BenchError) -> [String: QualityResult] {
        var results: [String: QualityResult] = [:]
        guard computesSSIM else {
            for (tool, path) in outputs {
                let (width, height) = try RGBDecoder.size(ofFile: path)
                results[tool] = QualityResult(width: width, height: height, byteCount: byteCount(of: path))
            }
            return results
        }
        let original = try RGBDecoder.decode(file: photo.path)
        let exifOrientation = try orientation(of: photo.path)
        var references: [String: RGBImage] = [:]
        for (tool, path) in outputs.sorted(by: { $0.key < $1.key }) {
            let output = try RGBDecoder.decode(file: path)
            var best: (ssim: Double, orientation: Orientation)?
            for candidate in Set([Orientation.up, exifOrientation]).sorted(by: { $0.rawValue < $1.rawValue }) {
                let (width, height) =
                    candidate.swapsWidthAndHeight
                    ? (original.height, original.width) : (original.width, original.height)
                let aspect = (Double(output.width) / Double(output.height)) / (Double(width) / Double(height))
                guard abs(aspect - 1) < 0.02 else { continue }
                let key = "\(candidate.rawValue) \(output.width)x\(output.height)"
                let reference =
                    references[key]
                    ?? LanczosReference.make(
                        from: original, orientation: candidate, width: output.width, height: output.height)
                references[key] = reference
                let ssim = SSIM.lumaSSIM(reference: reference, candidate: output)
                if best == nil || ssim > best!.ssim { best = (ssim, candidate) }
            }
            results[tool] = QualityResult(
                width: output.width, height: output.height, byteCount: byteCount(of: path), ssim: best?.ssim,
                orientation: best?.orientation.rawValue)
        }
        return results
    }

    /// The original's EXIF orientation, read by ImagePrep's own metadata reader.
    private static func orientation(of path: String) throws(BenchError) -> Orientation {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return PhotoMetadata.read(fromJPEG: data).metadata.orientation ?? .up
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
    }

    private static func byteCount(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
