#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The file that marks an output folder, the way `CACHEDIR.TAG` marks a cache: `-r` leaves a
/// marked folder out, so that a later run with another `--out` does not prepare this run's
/// copies again (`IMG.display.display.jpg`). A folder given by name is read all the same.
enum OutputMark {
    static let name = ".prep-photo-output"
    static let text = "This folder holds copies made by prep-photo. prep-photo -r leaves it out of its inputs.\n"

    /// Writes the mark into `folder` unless it is there; a folder that cannot take it is only
    /// not marked.
    static func mark(_ folder: BytePath) {
        let path = folder.appending(Array(name.utf8))
        guard case .failure = FileSystem.status(of: path, followingLinks: false),
            let descriptor = try? FileSystem.createNew(path)
        else { return }
        try? FileSystem.write(Data(text.utf8), to: descriptor, path: path)
        FileSystem.close(descriptor)
    }

    static func isMarked(_ folder: BytePath) -> Bool {
        if case .success = FileSystem.status(of: folder.appending(Array(name.utf8)), followingLinks: false) {
            return true
        }
        return false
    }
}
