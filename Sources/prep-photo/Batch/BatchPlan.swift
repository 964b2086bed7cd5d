/// One input of a batch: a photo and where its copies go, or an input decided before any work.
struct PlannedPhoto: Sendable {
    /// What was decided before any work: the input is left out, or it fails.
    enum Verdict: Sendable {
        case skipped(LeftOut)
        case failed(code: String, message: String)
    }

    /// The path as the user gave it, or as found in a folder they gave.
    let input: BytePath
    /// Its copies' path without the suffix: `OUT/2024/trip/IMG_0001`; nil when it has a verdict.
    let stem: BytePath?
    let status: FileStatus?
    var verdict: Verdict?

    /// Whether it counts among the photos of the summary ("Prepared 3 of 4 photos"): all but
    /// the inputs left out.
    var isPhoto: Bool {
        if case .skipped = verdict { return false }
        return true
    }

    /// Where its copy of a kind goes: the stem and the kind's suffix (`.display.jpg`).
    func destination(_ suffix: String) -> BytePath { BytePath(bytes: stem!.bytes + Array(suffix.utf8)) }

    /// The copies it would write: upload, and display and thumbnail when asked for.
    func copies(writesDisplay: Bool, writesThumbnail: Bool) -> [BytePath] {
        BatchPlan.suffixes(writesDisplay: writesDisplay, writesThumbnail: writesThumbnail).map(destination)
    }
}

/// Turns the inputs into the batch's photos and their output names.
///
/// Problems that only the batch as a whole can see are caught here, before anything is written:
/// one file met under two names (a link beside its target: it is one photo, prepared once), and
/// two photos that would write the same copies.
enum BatchPlan {
    static let uploadSuffix = ".jpg"
    static let displaySuffix = ".display.jpg"
    static let thumbnailSuffix = ".thumb.jpg"

    static func suffixes(writesDisplay: Bool, writesThumbnail: Bool) -> [String] {
        [uploadSuffix] + (writesDisplay ? [displaySuffix] : []) + (writesThumbnail ? [thumbnailSuffix] : [])
    }

    struct PlannedBatch: Sendable {
        var photos: [PlannedPhoto]
        /// The identity of every input photo, so that no copy ever replaces one.
        var inputIdentities: Set<FileIdentity>
    }

    /// - Parameters:
    ///   - writesDisplay, writesThumbnail: which copies besides the upload are written, so
    ///     that only real clashes are refused.
    static func make(
        _ found: [FoundInput], outputFolder: BytePath, writesDisplay: Bool, writesThumbnail: Bool
    ) -> PlannedBatch {
        // The name under which each file is prepared: its first name that is not a link, else its first.
        var chosen: [FileIdentity: Int] = [:]
        for (index, input) in found.enumerated() {
            guard case .photo(let photo) = input else { continue }
            if let earlier = chosen[photo.status.identity] {
                guard case .photo(let first) = found[earlier], first.isLink, !photo.isLink else { continue }
            }
            chosen[photo.status.identity] = index
        }

        var writers = StemRegistry<BytePath>(writesDisplay: writesDisplay, writesThumbnail: writesThumbnail)

        var identities: Set<FileIdentity> = []
        let photos = found.enumerated().map { index, input -> PlannedPhoto in
            switch input {
            case .skipped(let path, let leftOut):
                return PlannedPhoto(input: path, stem: nil, status: nil, verdict: .skipped(leftOut))
            case .failed(let path, let code, let message):
                return PlannedPhoto(input: path, stem: nil, status: nil, verdict: .failed(code: code, message: message))
            case .photo(let photo):
                identities.insert(photo.status.identity)
                let chosenIndex = chosen[photo.status.identity]!
                if chosenIndex != index, case .photo(let kept) = found[chosenIndex] {
                    return PlannedPhoto(
                        input: photo.path, stem: nil, status: photo.status,
                        verdict: .skipped(LeftOut(cause: .duplicate, detail: .keptAs(kept.path))))
                }
                let relativeStem = stem(of: photo.mirrored)
                if let earlier = writers.writer(clashingWith: relativeStem.bytes) {
                    return PlannedPhoto(
                        input: photo.path, stem: nil, status: photo.status,
                        verdict: .failed(
                            code: clashCode,
                            message: clashMessage(
                                photo.path, earlier: earlier, copy: outputFolder.appending(relativeStem.bytes))))
                }
                writers.register(relativeStem.bytes, writer: photo.path)
                return PlannedPhoto(
                    input: photo.path, stem: outputFolder.appending(relativeStem.bytes), status: photo.status,
                    verdict: nil)
            }
        }
        return PlannedBatch(photos: photos, inputIdentities: identities)
    }

    static let clashCode = "output_clash"

    /// Why an input whose copies would replace those of `earlier` (an input of the same run, or
    /// of another shard of the same list) is not prepared, and what to do.
    ///
    /// - Parameter copy: the upload copy's path without its suffix.
    static func clashMessage(_ input: BytePath, earlier: BytePath, shard: Shard? = nil, copy: BytePath) -> String {
        // Two names of one folder (IMG.jpg, IMG.JPG, IMG.heic) clash whatever -r and --base say;
        // names from two folders clash only when their folders are not kept.
        let remedy =
            input.parent?.bytes == earlier.parent?.bytes
            ? "copies are named after the photo's name without its extension, so rename one of the two to keep both"
            : "prepare their common folder with -r, or give --base, so that each keeps its folder under --out"
        let maker = shard.map { "'\(earlier)' by \($0)" } ?? "'\(earlier)'"
        return
            "'\(input)' was not prepared: its copies would replace those made from \(maker) ('\(copy)\(uploadSuffix)'); \(remedy)."
    }

    /// The mirrored path without the file's extension: `2024/trip/IMG_0001` for
    /// `2024/trip/IMG_0001.JPG`; a name without one (`.jpg`, `README`) is kept whole.
    static func stem(of mirrored: BytePath) -> BytePath {
        let name = Array(mirrored.lastComponent)
        let fileExtension = InputDiscovery.fileExtension(of: name)
        let kept =
            fileExtension.isEmpty ? name.count : name.count - name.reversed().firstIndex(of: UInt8(ascii: "."))! - 1
        return BytePath(bytes: mirrored.bytes.dropLast(name.count - kept))
    }
}

/// The stems of the photos of a batch so far, each with what writes it, and the earlier one a new
/// stem would clash with.
///
/// Copies are named stem + suffix, so two photos' copies meet only when their stems are equal,
/// or one is the other's plus ".display" or ".thumb" (IMG.display.jpg is both the display copy of
/// IMG.jpg and the upload copy of IMG.display.jpg).
struct StemRegistry<Writer> {
    /// A stem, hashed as one block of bytes rather than byte by byte (a shard hashes every
    /// stem of the whole list).
    private struct Key: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    private var writers: [Key: Writer] = [:]
    private let variants: [[UInt8]]

    init(writesDisplay: Bool, writesThumbnail: Bool) {
        variants = ((writesDisplay ? [".display"] : []) + (writesThumbnail ? [".thumb"] : [])).map { Array($0.utf8) }
    }

    /// What writes a stem whose copies would meet those of `stem`, if any.
    func writer(clashingWith stem: [UInt8]) -> Writer? {
        if let writer = writers[Key(bytes: stem)] { return writer }
        for variant in variants {
            if let writer = writers[Key(bytes: stem + variant)] { return writer }
            if stem.count > variant.count, stem.suffix(variant.count).elementsEqual(variant),
                let writer = writers[Key(bytes: Array(stem.dropLast(variant.count)))]
            {
                return writer
            }
        }
        return nil
    }

    mutating func register(_ stem: [UInt8], writer: Writer) { writers[Key(bytes: stem)] = writer }
}
