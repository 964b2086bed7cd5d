// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ImagePrep",
    products: [
        .library(name: "ImagePrep", targets: ["ImagePrep"]),
        .library(name: "Outbox", targets: ["Outbox"]),
        .executable(name: "prep-photo", targets: ["prep-photo"]),
        .executable(name: "prep-bench", targets: ["prep-bench"]),
    ],
    targets: [
        // C libraries that Debian ships; each module map points at a local shim.h.
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        .target(name: "ImagePrep", dependencies: ["CTurboJPEG", "CExif", "CLCMS2"]),
        .executableTarget(name: "prep-photo", dependencies: ["ImagePrep"]),
        // The whole-job benchmark against vipsthumbnail; run it from a release build (README, "Benchmark").
        .executableTarget(name: "prep-bench", dependencies: ["ImagePrep", "CTurboJPEG"]),
        .target(name: "Outbox", dependencies: ["ImagePrep", "CSQLite"]),

        .testTarget(
            name: "ImagePrepTests",
            // CTurboJPEG directly, so that tests decode the copies independently of our decoder.
            dependencies: ["ImagePrep", "CTurboJPEG"],
            path: "Tests",
            exclude: ["OutboxTests", "PrepPhotoTests", "PrepBenchTests", "Fixtures/README.md"],
            sources: ["ImagePrepTests"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "OutboxTests",
            dependencies: ["Outbox", "ImagePrep"],
            path: "Tests",
            exclude: ["ImagePrepTests", "PrepPhotoTests", "PrepBenchTests", "Fixtures/README.md"],
            sources: ["OutboxTests"],
            resources: [.copy("Fixtures")]
        ),
        // Runs the built prep-photo as a subprocess; the dependency makes `swift test` build it.
        .testTarget(
            name: "PrepPhotoTests",
            dependencies: ["prep-photo"],
            path: "Tests",
            exclude: ["ImagePrepTests", "OutboxTests", "PrepBenchTests", "Fixtures/README.md"],
            sources: ["PrepPhotoTests"],
            resources: [.copy("Fixtures")]
        ),
        // The benchmark's reference, SSIM and goal checks, on made-up numbers (never its timings).
        .testTarget(name: "PrepBenchTests", dependencies: ["prep-bench"], path: "Tests/PrepBenchTests"),
    ],
    swiftLanguageModes: [.v6]
)
