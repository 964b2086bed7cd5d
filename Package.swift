// swift-tools-version: 6.2
// 6.2: `@concurrent` (PhotoPreparer's async prepare, Outbox.commit) needs the 6.2 compiler.
import PackageDescription

/// The test targets, a folder each in `Tests`, beside TestSupport's.
let testTargetFolders = [
    "ImagePrepTests", "OutboxTests", "PhotoCaptureTests", "PrepPhotoTests", "EngineTests", "CommandLineParserTests",
    "PrepBenchTests",
]

let package = Package(
    name: "ImagePrep",
    // The floor most apps still support; `Locked` (PlatformLayer) stands where `Mutex` would need macOS 15 and iOS 18.
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "ImagePrep", targets: ["ImagePrep"]),
        .library(name: "Outbox", targets: ["Outbox"]),
        .library(name: "PhotoCapture", targets: ["PhotoCapture"]),
        .executable(name: "prep-photo", targets: ["prep-photo"]),
        .executable(name: "outbox", targets: ["OutboxCommand"]),
        .executable(name: "prep-bench", targets: ["prep-bench"]),
        .executable(name: "outbox-bench", targets: ["outbox-bench"]),
    ],
    targets: [
        // C libraries that Debian ships; each module map points at a local shim.h.
        // On a Mac the providers are Homebrew's formulae; on iOS see docs/apple.md.
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        // libjpeg's own API, for the warnings and the fatal errors TurboJPEG 2.x does not report.
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"]), .brew(["libexif"])]),
        .systemLibrary(
            name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        // libtiff 4.5 (TIFF and BigTIFF input): per-handle error handlers and an allocation limit.
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"]), .brew(["libtiff"])]),
        // libjxl 0.7 (JPEG XL input), OpenJPEG 2.5 (JPEG 2000 input), LibRaw 0.20's reentrant build
        // (camera raw and DNG input). libjxl's and LibRaw's pkg-config files give flags SwiftPM
        // refuses (-fopenmp, -D), and their headers are on the default path: no pkg-config for them.
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"]), .brew(["jpeg-xl"])]),
        .systemLibrary(
            name: "COpenJPEG", pkgConfig: "libopenjp2", providers: [.apt(["libopenjp2-7-dev"]), .brew(["openjpeg"])]),
        .systemLibrary(name: "CRaw", providers: [.apt(["libraw-dev"]), .brew(["libraw"])]),
        // Apple's SDKs ship SQLite; Homebrew's is only for a Mac without the SDK's pkg-config file.
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // OpenSSL's libcrypto: the outbox's AES-256-GCM, SHA-256 and random bytes on Linux (CryptoKit on Apple).
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        // libheif 1.15 (Debian 12's libheif1): HEIC and AVIF input, through libde265, dav1d and
        // libaom. Not linked, so that a process that meets no HEIF file never maps it (9 ms a
        // start): this target opens it at the first HEIF file and resolves its functions into a
        // table. It is not a system library, since pkg-config's flags would link libheif, and it
        // needs no libheif header: `include/Libheif.h` declares the part of the API it uses.
        .target(name: "CHeif"),
        // libspng 0.7 (Debian 12's libspng0): PNG and APNG input, a row at a time, no longjmp.
        .systemLibrary(name: "CSPNG", pkgConfig: "spng", providers: [.apt(["libspng-dev"]), .brew(["libspng"])]),

        // giflib 5.2 (no pkg-config file in Debian 12): GIF, read a line at a time.
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"]), .brew(["giflib"])]),
        // libwebp and its demuxer: WebP decoded at the upload's size, its chunks (EXIF, ICCP, XMP, frames).
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),

        // The per-pixel loops in C: fast in a debug build too, and compiled for AVX2 beside the
        // baseline, picked at run time.
        .target(name: "CPixelKernels"),
        .target(
            name: "ImagePrep",
            dependencies: [
                "CTurboJPEG", "CJPEG", "CExif", "CLCMS2", "CHeif", "CPixelKernels", "PlatformLayer", "PackageVersion",
                "CSPNG", "CGIF", "CWebP", "CTIFF", "CJXL", "COpenJPEG", "CRaw",
            ]),
        // The one command-line parser and help layout of the three commands; not a product.
        .target(name: "CommandLineParser", dependencies: ["PlatformLayer"]),
        // What prep-photo and outbox share around the parser: the standard streams, the progress
        // line and the stop signals; not a product.
        .target(name: "CommandSupport", dependencies: ["PlatformLayer"]),
        // The C library calls Swift's Glibc module leaves out: Linux's sync_file_range (prep-photo
        // starts the write-back of a photo's copies together, so that their fsyncs share one
        // journal commit) and glibc's mallopt (the commands keep the blocks libde265 frees; a HEIF
        // decode has malloc fill what it hands out).
        .target(name: "CLibcExtras"),
        // The one place that names the C library (Glibc, Darwin) and holds the calls that differ
        // between Linux and Apple's platforms, for every module; not a product.
        .target(name: "PlatformLayer", dependencies: ["CLibcExtras"]),
        // The package's version, once, for both libraries (and so every `--version`); not a product.
        .target(name: "PackageVersion"),
        .executableTarget(
            name: "prep-photo", dependencies: ["ImagePrep", "CommandLineParser", "CommandSupport", "PlatformLayer"]),
        // The queue of operations of any kind; it needs SQLite, and nothing of ImagePrep.
        .target(
            name: "Outbox",
            dependencies: [
                "CSQLite", "PlatformLayer", "PackageVersion",
                .target(name: "CCrypto", condition: .when(platforms: [.linux, .android])),
            ]),
        // Photo captures as one operation type: prepared photos in, capture.create operations out.
        .target(name: "PhotoCapture", dependencies: ["ImagePrep", "Outbox"]),
        // Not Sources/outbox: beside Sources/Outbox it would collide on a case-insensitive file system.
        .executableTarget(
            name: "OutboxCommand",
            dependencies: [
                "Outbox", "PhotoCapture", "ImagePrep", "CommandLineParser", "CommandSupport", "PlatformLayer",
            ]),
        // A small notes app on the outbox: its own table beside the queue, an operation per edit in
        // the same transaction. Not a product: the engine tests run it, and it shows how it is done.
        .executableTarget(name: "notes-example", dependencies: ["Outbox"]),
        // The whole-job benchmark against vipsthumbnail; run it from a release build (docs/benchmark.md).
        .executableTarget(
            name: "prep-bench",
            dependencies: [
                "ImagePrep", "CTurboJPEG", "CommandLineParser", "PlatformLayer", "CGIF", "CWebP", "CSPNG", "CTIFF",
                "CJXL",
                "COpenJPEG", "CRaw",
            ]),
        // What encryption at rest adds to an enqueue and a drain; run it from a release build.
        .executableTarget(
            name: "outbox-bench", dependencies: ["Outbox", "PhotoCapture", "ImagePrep", "PlatformLayer"]),

        // What the test targets share: `Tests/Fixtures` (one copy, in this target's bundle), temporary
        // folders, JSON values, the corpus manifest, the repository's own folder.
        .target(
            name: "TestSupport", dependencies: ["PlatformLayer"], path: "Tests",
            exclude: testTargetFolders + ["Fixtures/README.md"], sources: ["TestSupport"],
            resources: [.copy("Fixtures")]),
        // CTurboJPEG directly, so that tests decode the copies independently of our decoder; CJPEG for
        // libjpeg's message codes; CHeif for libheif's errors as it gives them.
        .testTarget(
            name: "ImagePrepTests", dependencies: ["TestSupport", "ImagePrep", "CTurboJPEG", "CJPEG", "CHeif"]),
        // Outbox on its own, so that the tests prove it needs nothing of ImagePrep.
        .testTarget(name: "OutboxTests", dependencies: ["TestSupport", "Outbox"]),
        .testTarget(name: "PhotoCaptureTests", dependencies: ["TestSupport", "PhotoCapture", "Outbox", "ImagePrep"]),
        // Runs the built prep-photo as a subprocess; the dependency makes `swift test` build it.
        // ImagePrep prepares the fuzz test's photos alone, to compare with prep-photo's batch.
        .testTarget(name: "PrepPhotoTests", dependencies: ["TestSupport", "prep-photo", "ImagePrep"]),
        // Runs the reference engine (python3), the built outbox and notes-example as subprocesses.
        .testTarget(
            name: "EngineTests",
            dependencies: ["TestSupport", "Outbox", "PhotoCapture", "ImagePrep", "OutboxCommand", "notes-example"]),
        // The parser on its own, the three commands' help and usage errors as golden text, and
        // their version against the libraries' and CHANGELOG.md's.
        .testTarget(
            name: "CommandLineParserTests",
            dependencies: [
                "TestSupport", "CommandLineParser", "prep-photo", "OutboxCommand", "prep-bench", "ImagePrep", "Outbox",
            ]),
        // The benchmark's reference, SSIM and goal checks, on made-up numbers (never its timings).
        .testTarget(name: "PrepBenchTests", dependencies: ["prep-bench"]),
    ],
    swiftLanguageModes: [.v6]
)
