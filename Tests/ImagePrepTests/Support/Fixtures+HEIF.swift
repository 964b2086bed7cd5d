import Foundation

extension Fixtures {
    /// The HEIF files of `Tests/Fixtures/heic` (made by its `make.sh`) and what they are held to.
    enum HEIF {
        /// Every HEIC and AVIF there, as paths relative to `Tests/Fixtures`.
        static let all: [String] = {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url("heic").path)) ?? []
            return names.filter { $0.hasSuffix(".heic") || $0.hasSuffix(".avif") }.sorted().map { "heic/" + $0 }
        }()

        /// The ones that prepare; the `bad-` ones are refused.
        static let preparable = all.filter { !$0.hasPrefix("heic/bad-") }

        static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

        static func stem(_ path: String) -> String {
            URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        }

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
            let file = url("heic/exif/\(stem(path)).tiff")
            guard FileManager.default.fileExists(atPath: file.path) else { return nil }
            return [UInt8](try Data(contentsOf: file))
        }
    }
}
