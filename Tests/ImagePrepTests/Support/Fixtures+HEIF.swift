import Foundation
import Testing

@testable import ImagePrep

/// The HEIF files of `Tests/Fixtures/heic` (made by its `make.sh`) and what they are held to.
enum HEIFFixtures {
    /// Every HEIC and AVIF there, as paths relative to `Tests/Fixtures`.
    static let all: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.url("heic").path)) ?? []
        return names.filter { $0.hasSuffix(".heic") || $0.hasSuffix(".avif") }.sorted().map { "heic/" + $0 }
    }()

    /// The ones that prepare; the `bad-` ones are refused.
    static let preparable = all.filter { !$0.hasPrefix("heic/bad-") }

    static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    static func stem(_ path: String) -> String { URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }

    /// heif-convert's decode of the file (`references/`), made by `make.sh`. The two `exif-`
    /// files have no-exif.heic's pixels, and heif-convert mishandles their Exif items.
    static func reference(of path: String) -> String {
        let stem = stem(path)
        return "heic/references/"
            + (stem.hasPrefix("exif-") && stem != "exif-orientation-6-without-irot"
                ? "no-exif" : stem) + ".jpg"
    }

    /// The files whose Exif block is larger than an APP1 segment holds: carried rebuilt, not byte
    /// for byte (`LargeEXIFTests`), and not taken out by `make.sh`.
    static let rebuiltEXIF: Set = ["heic/exif-larger-than-app1.heic", "heic/exif-185k-with-thumbnail.heic"]

    /// The TIFF block of the file's Exif item, as `heifcraft.py exif` took it out (not ImagePrep);
    /// nil when the file has none that `make.sh` kept.
    static func exifBlock(of path: String) throws -> [UInt8]? {
        let url = Fixtures.url("heic/exif/\(stem(path)).tiff")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return [UInt8](try Data(contentsOf: url))
    }

    /// Prepares the fixture and checks that every copy is a JPEG libjpeg-turbo decodes cleanly.
    static func prepared(_ path: String, configuration: PhotoPreparer.Configuration = .init()) throws -> PreparedPhoto {
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data(path), name: name(path))
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            let decoded = try DecodedJPEG(copy.data)
            #expect(decoded.size == copy.size && decoded.warnings.isEmpty, "\(path)")
        }
        return photo
    }

    /// The APP1 `Exif\0\0` segment of a JPEG, whole.
    static func exifSegment(of jpeg: Data) -> [UInt8]? {
        jpeg.withUnsafeBytes { bytes in SegmentWalker.walk(bytes).exifSegment(in: bytes).map { Array(bytes[$0.bytes]) }
        }
    }

    /// The ICC profile a JPEG carries, put back together from its APP2 chunks.
    static func iccProfile(of jpeg: Data) -> ICCProfile? {
        jpeg.withUnsafeBytes { bytes in ICCProfile.assemble(from: bytes, layout: SegmentWalker.walk(bytes)).0 }
    }
}
