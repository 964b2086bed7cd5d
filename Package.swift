// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ImagePrep",
    products: [
        .library(name: "ImagePrep", targets: ["ImagePrep"]),
        .library(name: "Outbox", targets: ["Outbox"]),
        .executable(name: "prep-photo", targets: ["prep-photo"]),
        .executable(name: "outbox", targets: ["OutboxCommand"]),
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
        .target(name: "Outbox", dependencies: ["ImagePrep", "CSQLite"]),
        // Not Sources/outbox: beside Sources/Outbox it would collide on a case-insensitive file system.
        .executableTarget(name: "OutboxCommand", dependencies: ["Outbox", "ImagePrep"]),

        .testTarget(
            name: "ImagePrepTests",
            // CTurboJPEG directly, so that tests decode the copies independently of our decoder.
            dependencies: ["ImagePrep", "CTurboJPEG"],
            path: "Tests",
            exclude: ["OutboxTests", "PrepPhotoTests", "EngineTests", "Fixtures/README.md"],
            sources: ["ImagePrepTests"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "OutboxTests",
            dependencies: ["Outbox", "ImagePrep"],
            path: "Tests",
            exclude: ["ImagePrepTests", "PrepPhotoTests", "EngineTests", "Fixtures/README.md"],
            sources: ["OutboxTests"],
            resources: [.copy("Fixtures")]
        ),
        // Runs the built prep-photo as a subprocess; the dependency makes `swift test` build it.
        .testTarget(
            name: "PrepPhotoTests",
            dependencies: ["prep-photo"],
            path: "Tests",
            exclude: ["ImagePrepTests", "OutboxTests", "EngineTests", "Fixtures/README.md"],
            sources: ["PrepPhotoTests"],
            resources: [.copy("Fixtures")]
        ),
        // Runs the reference engine (python3) and the built outbox as subprocesses; the
        // dependency on OutboxCommand makes `swift test` build the executable.
        .testTarget(
            name: "EngineTests",
            dependencies: ["Outbox", "ImagePrep", "OutboxCommand"],
            path: "Tests",
            exclude: ["ImagePrepTests", "OutboxTests", "PrepPhotoTests", "Fixtures/README.md"],
            sources: ["EngineTests"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
