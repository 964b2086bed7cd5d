import Foundation
import ImagePrep

/// One benchmark input.
struct BenchPhoto: Sendable, Codable {
    /// The path as found or given.
    let path: String
    let width: Int
    let height: Int
    let byteCount: Int

    /// The file name without its extension: what prep-photo names its copies after.
    var stem: String { URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }
    var megapixels: Double { Double(width * height) / 1e6 }

    /// The photo at `path`, JPEG or HEIF, sized as stored (what ImagePrep reads).
    static func read(_ path: String) throws(BenchError) -> BenchPhoto {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "it cannot be read")
        }
        let size = PhotoMetadata.read(from: data).metadata.originalSize
        return BenchPhoto(path: path, width: size.width, height: size.height, byteCount: data.count)
    }
}

/// The benchmark's inputs, split by size: the goals speak of 12–16 MP photos and of a 48 MP one
/// separately, so the large ones must not dilute the medians of the rest.
struct PhotoSet {
    /// Photos above this many megapixels are reported on rows of their own.
    static let largePhotoMegapixels = 24

    /// The camera and phone photos (12–16 MP in the shared set), sorted by name.
    var regular: [BenchPhoto]
    /// Photos above `largePhotoMegapixels`, e.g. the 48 MP mosaic.
    var large: [BenchPhoto]

    var all: [BenchPhoto] { regular + large }

    /// Every `.jpg`/`.jpeg` in `folder` (the first `limit` by name) plus `extras`.
    static func load(folder: String, limit: Int?, extras: [String]) throws(BenchError) -> PhotoSet {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { name in
                let lowered = name.lowercased()
                return !name.hasPrefix(".") && (lowered.hasSuffix(".jpg") || lowered.hasSuffix(".jpeg"))
            }.sorted()
        } catch {
            throw .unreadable(path: folder, reason: error.localizedDescription)
        }
        let chosen = limit.map { Array(names.prefix($0)) } ?? names
        var photos: [BenchPhoto] = []
        for path in chosen.map({ URL(fileURLWithPath: folder).appendingPathComponent($0).path }) + extras {
            let (width, height) = try RGBDecoder.size(ofFile: path)
            let byteCount = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
            photos.append(BenchPhoto(path: path, width: width, height: height, byteCount: byteCount))
        }
        guard !photos.isEmpty else { throw .noPhotos(folder: folder) }
        var stems = Set<String>()
        for photo in photos where !stems.insert(photo.stem).inserted { throw .sameName(stem: photo.stem) }
        let isLarge = { (photo: BenchPhoto) in photo.megapixels > Double(largePhotoMegapixels) }
        return PhotoSet(regular: photos.filter { !isLarge($0) }, large: photos.filter(isLarge))
    }
}
