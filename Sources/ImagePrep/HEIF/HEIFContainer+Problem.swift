extension HEIFContainer {
    /// Why the walk refused the file. Each reason is a clause for an error message, in our words,
    /// with nothing read from the file in it.
    enum Problem: Error, Equatable {
        case malformed(String)
        case truncated(String)
        case noImage
        case unsupported(String)

        var clause: String {
            switch self {
            case .malformed(let clause), .truncated(let clause), .unsupported(let clause): clause
            case .noImage: "it holds no image"
            }
        }

        func imagePrepError(file: String) -> ImagePrepError {
            switch self {
            case .malformed(let detail): .corruptHEIF(file: file, detail: detail)
            case .truncated(let detail): .incompleteImageData(file: file, detail: detail)
            case .noImage: .heifWithoutImage(file: file)
            case .unsupported(let reason): .unsupportedHEIF(file: file, reason: reason)
            }
        }
    }
}
