#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One input of a batch and where its copies go.
struct PlannedPhoto: Sendable {
    /// The path as the user gave it (or as found in a folder they gave).
    let input: String
    let upload: URL
    let display: URL
    let thumbnail: URL
    /// Why this input is not prepared at all, decided before any work starts.
    var refusal: String?
}

/// Turns the command line's files and folders into the list of photos and their output names.
///
/// Problems that only the batch as a whole can see are caught here, before anything is written:
/// two inputs that would write the same copies, and a copy that would land on an input.
enum BatchPlan {
    /// File name extensions taken from a folder: JPEGs, and other image formats so that a PNG
    /// or HEIC in a folder is reported as "not a JPEG" rather than skipped without a word.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "heic", "heif", "avif", "gif", "webp", "tif", "tiff", "bmp",
    ]

    struct Result {
        var photos: [PlannedPhoto]
        /// Files in the given folders that are not images.
        var skippedFileCount: Int
    }

    /// - Parameters:
    ///   - writesDisplay, writesThumbnail: which copies besides the upload will be written, so
    ///     that only real clashes are refused.
    ///   - folderProblem: why the output folder cannot be used; every input is refused with it,
    ///     so that each is still reported.
    static func make(
        inputs: [String], outputFolder: URL, writesDisplay: Bool, writesThumbnail: Bool, folderProblem: String? = nil
    ) -> Result {
        var paths: [(input: String, refusal: String?)] = []
        var skipped = 0
        for input in inputs {
            guard isDirectory(input) else {
                paths.append((input, nil))
                continue
            }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []).sorted()
            let files = names.filter { !$0.hasPrefix(".") && isRegularFile(Self.path(input, $0)) }
            let images = files.filter { imageExtensions.contains(Self.fileExtension(of: $0)) }
            skipped += files.count - images.count
            if images.isEmpty {
                paths.append((input, "'\(input)' is a folder with no photos in it."))
            }
            paths += images.map { (Self.path(input, $0), nil) }
        }

        let inputIdentities = Set(paths.compactMap { fileIdentity($0.input) })
        var writerOfOutput: [String: String] = [:]
        var inputOfIdentity: [[UInt64]: String] = [:]
        let photos = paths.map { path -> PlannedPhoto in
            let file =
                path.input.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path.input
            let fileExtension = Self.fileExtension(of: file)
            let name = fileExtension.isEmpty ? file : String(file.dropLast(fileExtension.count + 1))
            var photo = PlannedPhoto(
                input: path.input,
                upload: outputFolder.appendingPathComponent(name + ".jpg"),
                display: outputFolder.appendingPathComponent(name + ".display.jpg"),
                thumbnail: outputFolder.appendingPathComponent(name + ".thumb.jpg"),
                refusal: path.refusal ?? folderProblem)
            guard photo.refusal == nil else { return photo }
            if let identity = fileIdentity(path.input) {
                if let earlier = inputOfIdentity[identity] {
                    photo.refusal =
                        "'\(path.input)' was not prepared: it is the same file as '\(earlier)', given twice."
                    return photo
                }
                inputOfIdentity[identity] = path.input
            }
            let outputs =
                [photo.upload] + (writesDisplay ? [photo.display] : []) + (writesThumbnail ? [photo.thumbnail] : [])
            if let clash = outputs.first(where: { writerOfOutput[$0.lastPathComponent] != nil }) {
                let earlier = writerOfOutput[clash.lastPathComponent]!
                photo.refusal =
                    "'\(path.input)' was not prepared: its copy \(clash.lastPathComponent) would replace the one made from '\(earlier)'; rename one of them or prepare them into different folders."
                return photo
            }
            if let clash = outputs.first(where: { fileIdentity($0.path).map(inputIdentities.contains) ?? false }) {
                photo.refusal =
                    "'\(path.input)' was not prepared: its copy '\(clash.relativePath)' would overwrite an input."
                return photo
            }
            for output in outputs { writerOfOutput[output.lastPathComponent] = path.input }
            return photo
        }
        return Result(photos: photos, skippedFileCount: skipped)
    }

    /// The lowercased extension of a file name, without the dot; empty for ".hidden" and "README".
    static func fileExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    private static func path(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    static func isDirectory(_ path: String) -> Bool { fileType(path) == S_IFDIR }

    private static func isRegularFile(_ path: String) -> Bool { fileType(path) == S_IFREG }

    private static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// Device and inode, so that two spellings of one file (./a.jpg, a.jpg, a link) are equal.
    private static func fileIdentity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
}
