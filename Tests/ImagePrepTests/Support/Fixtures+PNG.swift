import Foundation

extension Fixtures {
    /// The PNGs of `Tests/Fixtures/formats/png`: real files copied in from public repositories (its
    /// README gives each one's source, licence and sha256) and the ones `make-crafted.sh` writes with
    /// ImageMagick; `hostile/` is `PNGHostileInputTests`'.
    enum PNG {
        static let all: [String] = {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url("formats/png").path)) ?? []
            return names.filter { $0.hasSuffix(".png") || $0.hasSuffix(".apng") }.sorted().map { "formats/png/" + $0 }
        }()
    }
}
