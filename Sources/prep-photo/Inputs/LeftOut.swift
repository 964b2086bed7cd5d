/// Why an input met in a folder is left out. None of these is a failure: each is counted in
/// the summary, named with `--verbose`, and has a JSON line with `"skipped": true`.
enum SkipCause: String, Sendable, CaseIterable {
    case hidden
    case notImage = "not_image"
    case danglingLink = "dangling_link"
    case specialFile = "special_file"
    case subfolder
    case linkedFolder = "linked_folder"
    case outputFolder = "output_folder"
    /// A folder with `OutputMark`'s file: the output folder of another run.
    case earlierOutput = "earlier_output"
    case duplicate

    /// The stable code of its JSON line.
    var code: String { rawValue }

    /// "3 hidden", "1 not an image": the count in the summary.
    func counted(_ count: Int) -> String {
        let one = count == 1
        return switch self {
        case .hidden: "\(count) hidden"
        case .notImage: one ? "1 not an image" : "\(count) not images"
        case .danglingLink: one ? "1 dangling link" : "\(count) dangling links"
        case .specialFile: one ? "1 special file" : "\(count) special files"
        case .subfolder: one ? "1 subfolder without -r" : "\(count) subfolders without -r"
        case .linkedFolder: one ? "1 linked folder" : "\(count) linked folders"
        case .outputFolder: "the output folder"
        case .earlierOutput: one ? "1 earlier output folder" : "\(count) earlier output folders"
        case .duplicate: one ? "1 duplicate" : "\(count) duplicates"
        }
    }
}

/// An input left out, and why: its message is made only when it is reported, so that a library
/// with a million sidecar files does not hold a million sentences.
struct LeftOut: Sendable {
    enum Detail: Sendable {
        case none
        /// A special file, or a link to one: what it is.
        case kind(FileStatus.Kind, isLink: Bool)
        /// A folder met again below itself.
        case loop
        /// A second name of a photo: the name it is prepared as.
        case keptAs(BytePath)
    }

    let cause: SkipCause
    var detail = Detail.none

    /// The sentence of its line: "'LIB/.DS_Store' is hidden (its name starts with a dot)."
    func message(about path: BytePath) -> String {
        switch (cause, detail) {
        case (.hidden, _): "'\(path)' is hidden (its name starts with a dot)."
        case (.notImage, _): "'\(path)' is not an image (by its name)."
        case (.danglingLink, _): "'\(path)' is a symbolic link to something that does not exist."
        case (.specialFile, .kind(let kind, true)):
            "'\(path)' links to \(FileStatus.describe(kind)), not a file."
        case (.specialFile, .kind(let kind, false)): "'\(path)' is \(FileStatus.describe(kind)), not a file."
        case (.specialFile, _): "'\(path)' is not a regular file."
        case (.subfolder, _): "'\(path)' is a subfolder, read only with -r."
        case (.linkedFolder, .loop): "'\(path)' is a folder above it again (a loop), which is not followed."
        case (.linkedFolder, _): "'\(path)' is a symbolic link to a folder, which is not followed."
        case (.outputFolder, _): "'\(path)' is the output folder, which is not read."
        case (.earlierOutput, _):
            "'\(path)' holds copies an earlier run made (it has a \(OutputMark.name) file), which are not read."
        case (.duplicate, .keptAs(let kept)):
            "'\(path)' is the same file as '\(kept)'; it is prepared once, as '\(kept)'."
        case (.duplicate, _): "'\(path)' is the same file as another input; it is prepared once."
        }
    }
}
