/// A file to prepare, as found on the command line, in a file list or in a folder.
struct FoundPhoto: Sendable {
    let path: BytePath
    /// Its path under `--out`, extension included: its name alone, its path below the folder
    /// it was found in, or its path below `--base`.
    let mirrored: BytePath
    let status: FileStatus
    /// Whether `path` is a symbolic link (to a regular file).
    let isLink: Bool
}

/// One input, decided as far as can be without reading it.
enum FoundInput: Sendable {
    case photo(FoundPhoto)
    case skipped(BytePath, LeftOut)
    case failed(BytePath, code: String, message: String)
}

/// Expands the command line's files and folders, and the file lists, into inputs.
///
/// - A folder given is read; with `-r`, its subfolders too, never following a symbolic link to a
///   folder (so never out of the tree, nor round in a loop) and never entering the output folder.
/// - In a folder, hidden names, files that are not images, dangling links and special files are
///   left out, each counted by cause; a file or folder given by name is always tried.
/// - Paths are bytes throughout, so that names that are not UTF-8 are found and opened.
struct InputDiscovery {
    /// File name extensions taken from a folder: every format ImagePrep prepares, and JPEG XR,
    /// which it refuses in words, so that no image is left out as "not an image". The file's
    /// content decides its format, never its name.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "heic", "heif", "hif", "avif", "png", "apng", "gif", "webp", "tif", "tiff", "bmp",
        // JPEG XL, JPEG 2000, Photoshop, DNG and camera raws, and JPEG XR (refused in words).
        "jxl", "jp2", "j2k", "j2c", "jpf", "jpx", "psd", "psb", "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf",
        "sr2", "orf", "rw2", "rwl", "raf", "pef", "srw", "x3f", "3fr", "iiq", "erf", "mrw", "kdc", "dcr", "mos",
        "jxr", "wdp", "hdp",
    ]

    let isRecursive: Bool
    /// `--base`, made absolute and normalized, and the same with its links resolved.
    private let base: (lexical: [ArraySlice<UInt8>], resolved: [ArraySlice<UInt8>]?, shown: String)?
    private let workingFolder: BytePath
    private let outputFolder: FileIdentity?
    /// Asked between folders, so that Ctrl-C stops a long walk.
    private let isStopRequested: () -> Bool
    private(set) var found: [FoundInput] = []

    init(
        isRecursive: Bool, base: BytePath?, outputFolder: FileIdentity?,
        isStopRequested: @escaping () -> Bool
    ) {
        self.isRecursive = isRecursive
        self.outputFolder = outputFolder
        self.isStopRequested = isStopRequested
        workingFolder = FileSystem.workingFolder()
        self.base = base.map { base in
            (
                base.lexicallyAbsolute(from: FileSystem.workingFolder()),
                FileSystem.resolved(base)?.components, base.description
            )
        }
    }

    /// Adds a path given on the command line or in a file list.
    mutating func add(_ path: BytePath) {
        let status: FileStatus
        switch FileSystem.status(of: path, followingLinks: true) {
        case .success(let followed): status = followed
        case .failure(let error):
            if case .success(let own) = FileSystem.status(of: path, followingLinks: false), own.kind == .symbolicLink {
                found.append(
                    .failed(
                        path, code: SkipCause.danglingLink.code,
                        message: "'\(path)' is a symbolic link to something that does not exist."))
            } else {
                found.append(
                    .failed(path, code: "unreadable", message: "'\(path)' could not be read: \(error.reason)."))
            }
            return
        }
        switch status.kind {
        case .folder:
            addFolder(path, status: status)
        case .regular:
            addFile(path, mirroredBelowFolder: nil, status: status, isLink: isLink(path))
        default:
            found.append(
                .failed(
                    path, code: SkipCause.specialFile.code,
                    message: "'\(path)' is not a regular file (it is \(status.kindDescription)), so it was not opened.")
            )
        }
    }

    /// The path under `--out` of a file given by name (on the command line or in a list): its
    /// path below `--base`, or its name alone; nil when it is outside `--base`. Found without
    /// looking at the file (links are resolved only for a path not below `--base` as written).
    func mirroredPath(ofGiven path: BytePath) -> BytePath? {
        guard let base else { return BytePath(bytes: path.lastComponent) }
        return Self.path(path, below: base, workingFolder: workingFolder)
    }

    /// Adds an input that failed before it could be looked at (a line of a file list).
    mutating func addFailure(_ shown: BytePath, code: String, message: String) {
        found.append(.failed(shown, code: code, message: message))
    }

    private func isLink(_ path: BytePath) -> Bool {
        if case .success(let own) = FileSystem.status(of: path, followingLinks: false) {
            return own.kind == .symbolicLink
        }
        return false
    }

    private mutating func addFolder(_ folder: BytePath, status: FileStatus) {
        if status.identity == outputFolder {
            found.append(
                .failed(
                    folder, code: SkipCause.outputFolder.code,
                    message: "'\(folder)' is the output folder: what is in it are copies, not photos to prepare."))
            return
        }
        let start = found.count
        let photos = walk(folder, mirrored: BytePath(bytes: []), ancestors: [status.identity])
        let added = found[start...]
        let failures = added.filter { if case .failed = $0 { true } else { false } }.count
        guard photos == 0, failures == 0, !isStopRequested() else { return }
        let hasSubfolders = added.contains {
            if case .skipped(_, let leftOut) = $0 { leftOut.cause == .subfolder } else { false }
        }
        found.append(
            .failed(
                folder, code: "no_photos",
                message: "'\(folder)' is a folder with no photos in it"
                    + (hasSubfolders ? " (its subfolders are read with -r)." : ".")))
    }

    /// Adds what is in `folder`, depth first in the order of the names' bytes.
    ///
    /// - Parameters:
    ///   - mirrored: the folder's path below the folder given.
    ///   - ancestors: the folders above, which a folder met again would loop back to (a bind
    ///     mount can make a loop without any symbolic link).
    /// - Returns: how many photos were found.
    private mutating func walk(_ folder: BytePath, mirrored: BytePath, ancestors: Set<FileIdentity>) -> Int {
        let names: [[UInt8]]
        switch FileSystem.names(inFolder: folder) {
        case .success(let listed): names = listed
        case .failure(let error):
            found.append(
                .failed(folder, code: "unreadable", message: "'\(folder)' could not be read: \(error.reason)."))
            return 0
        }
        var photos = 0
        for name in names {
            let path = folder.appending(name)
            let below = mirrored.appending(name)
            if name.first == UInt8(ascii: ".") {
                skip(path, LeftOut(cause: .hidden))
                continue
            }
            let own: FileStatus
            switch FileSystem.status(of: path, followingLinks: false) {
            case .success(let status): own = status
            case .failure(let error):
                found.append(
                    .failed(path, code: "unreadable", message: "'\(path)' could not be read: \(error.reason)."))
                continue
            }
            switch own.kind {
            case .symbolicLink:
                switch FileSystem.status(of: path, followingLinks: true) {
                case .failure:
                    skip(path, LeftOut(cause: .danglingLink))
                case .success(let target) where target.kind == .folder:
                    skip(path, LeftOut(cause: .linkedFolder))
                case .success(let target) where target.kind == .regular:
                    photos += addFile(path, mirroredBelowFolder: below, status: target, isLink: true)
                case .success(let target):
                    skip(path, LeftOut(cause: .specialFile, detail: .kind(target.kind, isLink: true)))
                }
            case .folder where own.identity == outputFolder:
                skip(path, LeftOut(cause: .outputFolder))
            case .folder where !isRecursive:
                skip(path, LeftOut(cause: .subfolder))
            case .folder where OutputMark.isMarked(path):
                skip(path, LeftOut(cause: .earlierOutput))
            case .folder where ancestors.contains(own.identity):
                skip(path, LeftOut(cause: .linkedFolder, detail: .loop))
            case .folder:
                guard !isStopRequested() else { return photos }
                photos += walk(path, mirrored: below, ancestors: ancestors.union([own.identity]))
            case .regular:
                photos += addFile(path, mirroredBelowFolder: below, status: own, isLink: false)
            default:
                skip(path, LeftOut(cause: .specialFile, detail: .kind(own.kind, isLink: false)))
            }
        }
        return photos
    }

    private mutating func skip(_ path: BytePath, _ leftOut: LeftOut) {
        found.append(.skipped(path, leftOut))
    }

    /// Adds a regular file: from a folder only when its name is an image's.
    ///
    /// - Parameter mirroredBelowFolder: its path below the folder it was found in; nil for a
    ///   file given by name, which is taken whatever its name.
    /// - Returns: 1 when it was added as a photo.
    @discardableResult
    private mutating func addFile(
        _ path: BytePath, mirroredBelowFolder: BytePath?, status: FileStatus, isLink: Bool
    ) -> Int {
        if mirroredBelowFolder != nil, !Self.imageExtensions.contains(Self.fileExtension(of: path.lastComponent)) {
            skip(path, LeftOut(cause: .notImage))
            return 0
        }
        let mirrored: BytePath
        if let base {
            guard let below = Self.path(path, below: base, workingFolder: workingFolder) else {
                found.append(
                    .failed(
                        path, code: "outside_base",
                        message: "'\(path)' is not inside --base '\(base.shown)', so it has no place under --out."))
                return 0
            }
            mirrored = below
        } else {
            mirrored = mirroredBelowFolder ?? BytePath(bytes: path.lastComponent)
        }
        found.append(.photo(FoundPhoto(path: path, mirrored: mirrored, status: status, isLink: isLink)))
        return 1
    }

    /// `path` relative to `--base`: compared as written (made absolute), and else with the links
    /// of both resolved, so that `/photos` and `/mnt/photos` behind a link still match.
    private static func path(
        _ path: BytePath, below base: (lexical: [ArraySlice<UInt8>], resolved: [ArraySlice<UInt8>]?, shown: String),
        workingFolder: BytePath
    ) -> BytePath? {
        func relative(_ components: [ArraySlice<UInt8>], _ base: [ArraySlice<UInt8>]) -> BytePath? {
            guard components.count > base.count, components.starts(with: base) else { return nil }
            return BytePath(bytes: components[base.count...].joined(separator: [UInt8(ascii: "/")]))
        }
        if let below = relative(path.lexicallyAbsolute(from: workingFolder), base.lexical) { return below }
        guard let resolvedBase = base.resolved, let folder = FileSystem.resolved(path.parent ?? BytePath(".")) else {
            return nil
        }
        return relative(folder.components + [path.lastComponent], resolvedBase)
    }

    /// The lowercased extension of a file name, without the dot; empty for ".hidden", "README"
    /// and an extension that is not ASCII.
    static func fileExtension(of name: some Collection<UInt8>) -> String {
        let bytes = Array(name)
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != 0 else { return "" }
        let suffix = bytes[(dot + 1)...]
        guard suffix.allSatisfy({ $0 < 0x80 }) else { return "" }
        return String(decoding: suffix, as: UTF8.self).lowercased()
    }
}
