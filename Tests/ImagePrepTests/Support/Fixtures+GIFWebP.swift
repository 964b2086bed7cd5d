import Foundation

@testable import ImagePrep

extension Fixtures {
    /// The GIF and WebP fixtures of `Tests/Fixtures/formats` (README-gif-webp.md) and vipsthumbnail's
    /// copies of them, as 8 x 8 cells of mean RGB (`gif-webp-vips-cells.json`).
    enum GIFWebP {
        static let gifs = [
            "gif-static-photo-sharp.gif", "gif-transparent-pillow.gif", "gif-animated-iss634-pillow.gif",
            "gif-animated-fullcolour-local-palettes-thumbor.gif",
            "gif-animated-phone-screen-recording-android-samples.gif", "gif-interlaced-bands-crafted.gif",
        ]
        static let webps = [
            "webp-lossy-vp8-photo-twelvemonkeys.webp", "webp-lossless-vp8l-alpha-twelvemonkeys.webp",
            "webp-lossy-alpha-twelvemonkeys.webp", "webp-animated-sharp.webp", "webp-exif-iccp-xmp-pillow.webp",
            "webp-iccp-adobergb-twelvemonkeys.webp", "webp-exif-gps-xmp-metadata-extractor.webp",
            "webp-iccp-exif-gps-htc-phone-metadata-extractor.webp",
        ]
        static let animated: Set = [
            "gif-animated-iss634-pillow.gif", "gif-animated-fullcolour-local-palettes-thumbor.gif",
            "gif-animated-phone-screen-recording-android-samples.gif", "webp-animated-sharp.webp",
        ]

        /// vipsthumbnail's copy of each fixture: its size and 64 cells of mean R, G, B.
        static let vipsCells: [String: (size: PixelSize, cells: [[Double]])] = {
            guard let data = try? Fixtures.data("formats/gif-webp-vips-cells.json"),
                case .object(let files)? = try? JSONDecoder().decode(JSONValue.self, from: data)
            else { return [:] }
            var cells: [String: (PixelSize, [[Double]])] = [:]
            for (name, value) in files {
                guard case .object(let entry) = value, let width = entry["width"]?.int,
                    let height = entry["height"]?.int, let rows = entry["cells"]?.array
                else { continue }
                cells[name] = (
                    PixelSize(width: width, height: height), rows.map { $0.array?.compactMap(\.number) ?? [] }
                )
            }
            return cells
        }()
    }
}
