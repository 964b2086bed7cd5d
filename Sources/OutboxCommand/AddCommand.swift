import ImagePrep
import Outbox
import PhotoCapture

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox add`: prepares each photo and queues it, one at a time and in order, printing each id
/// only once its capture is durable.
///
/// One at a time, so that a kill leaves a simple state behind: the photos before the current
/// one queued and printed, the current one queued whole or not at all, the rest untouched. And
/// `commitOnce` with the file's modification time as the moment of saving, so that running the
/// same add again after a kill queues nothing twice.
struct AddCommand {
    let photos: [String]
    let kind: String
    let note: String
    let maxEdge: Int
    let quality: Int

    /// Queues the photos.
    ///
    /// - Returns: The exit status: 0 when every photo was queued, 1 when some failed.
    func run(store: Outbox) async -> Int32 {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = maxEdge
        configuration.quality = quality
        // The outbox keeps the upload copy only; the app makes its own display copies.
        configuration.displayEdge = nil
        configuration.thumbnailEdge = nil
        let preparer: PhotoPreparer
        do {
            preparer = try PhotoPreparer(configuration: configuration)
        } catch {
            Terminal.writeError("outbox: error: \(error)\n")
            return 2
        }
        let workspace = PreparationWorkspace()
        var failures = 0
        for path in photos {
            do {
                let photo = try await preparer.prepare(contentsOf: URL(fileURLWithPath: path), workspace: workspace)
                for warning in photo.warnings {
                    Terminal.writeError("outbox: warning: '\(path)': \(warning.message)\n")
                }
                let saved = try await store.commitOnce(
                    idPrefix: Self.idPrefix(kind: kind), kind: kind, note: note, photos: [photo],
                    savedAt: Self.modificationDate(of: path))
                Terminal.writeOutput(saved.id + "\n")
                if saved.result == .alreadyQueued {
                    Terminal.writeError("outbox: '\(path)' was already queued as '\(saved.id)'.\n")
                }
            } catch let error as ImagePrepError {
                failures += 1
                Terminal.writeError("outbox: error: \(error.description)\n")
            } catch {
                failures += 1
                Terminal.writeError("outbox: error: '\(path)' was prepared but not queued: \(error)\n")
            }
        }
        return failures == 0 ? 0 : 1
    }

    /// When the photo's file was last written: the capture time of a photo that does not carry
    /// its own with a UTC offset. The same file gives the same moment however often it is added,
    /// so that adding it again derives the same id; "now" would make every run a new capture.
    static func modificationDate(of path: String) -> Date {
        (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
    }

    /// The start of each id: the kind's letters, digits, '-' and '_' (at most 32 of them) and a
    /// '-', so that ids say what they are ("plate-3f2a…"); "capture-" when none are left.
    static func idPrefix(kind: String) -> String {
        let kept = kind.unicodeScalars.filter { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-"
                    || scalar == "_")
        }
        let prefix = String(String.UnicodeScalarView(kept.prefix(32)))
        return (prefix.isEmpty ? "capture" : prefix) + "-"
    }
}
