/// Why the benchmark could not measure something. Each message is one sentence naming the file
/// or command and the cause.
enum BenchError: Error, Equatable, Sendable, Codable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notDecodable(path: String, detail: String)
    case noPhotos(folder: String)
    case sameName(stem: String)
    case preparationFailed(detail: String)
    case cannotWrite(path: String, reason: String)
    case toolFailed(command: String, detail: String)
    case badThresholds(path: String, detail: String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): "'\(path)' could not be read: \(reason)."
        case .notDecodable(let path, let detail): "'\(path)' could not be decoded: \(detail)."
        case .noPhotos(let folder): "'\(folder)' holds no .jpg or .jpeg files."
        case .sameName(let stem):
            "Two inputs are called '\(stem)', so their copies would overwrite each other; rename one."
        case .preparationFailed(let detail): "ImagePrep failed: \(detail)"
        case .cannotWrite(let path, let reason): "'\(path)' could not be written: \(reason)."
        case .toolFailed(let command, let detail): "'\(command)' failed: \(detail)"
        case .badThresholds(let path, let detail): "The thresholds file '\(path)' is unusable: \(detail)."
        }
    }
}
