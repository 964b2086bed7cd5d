import Foundation
import Testing

@testable import ImagePrep

/// Real photos damaged in thousands of seeded, structure-aware ways, each prepared twice: by
/// `prep-photo` in a batch (one worker, its workspace reused from photo to photo) and alone in a
/// fresh workspace. The two must agree byte for byte, refusal for refusal: a damaged photo never
/// shows what was prepared before it. Every copy keeps the segment rules, decodes cleanly, no
/// temporary file is left, and no error, warning or line on stderr holds the seed's coordinates.
/// A crash or a hang fails the run; each batch runs under a memory cap (`setrlimit`) and a time
/// limit, and every line on its stderr is one of prep-photo's own, none a C library's.
///
/// `PREP_FUZZ_MUTATIONS` (default 2400) and `PREP_FUZZ_SEED` set the run, `PREP_FUZZ_MEMORY_MB`
/// the batches' address-space cap (default 4096), and `PREP_FUZZ_ONLY` (`heif`, `jpeg`, `png`,
/// `avif` for the AV1 seeds alone, `ultrahdr` for the Ultra HDR seeds alone, `gainmap` for the HDR seeds of every form, `phones`
/// for the four real phone photos, `gif`, `webp`, `gifwebp`, `tiff`, `bmp`, `tiffbmp`) keeps some
/// seeds; `scripts/fuzz.sh N SEED [ONLY]` runs a long one. A failure names the seed file, the mutation's number and what it did, which
/// is all it takes to make the same file again.
@Suite("Fuzz: mutated photos in a batch are the same photos alone")
struct FuzzTests {
    /// Small real files that between them take every decode path and every metadata reader: EXIF
    /// in both byte orders with IFD1 thumbnails and GPS, ICC profiles (RGB, gray, Display P3),
    /// XMP and COM, CMYK/YCCK, gray, progressive and arithmetic coding, restart markers (one
    /// photo tall enough that `prep-photo` on one worker cuts it in two), odd-sized 4:2:2, a
    /// truncated file; an Ultra HDR JPEG with ISO 21496-1 metadata and one with ISO 21496-1 alone
    /// (their MPF index and gain map mutated too); and HEIF: an iPhone-like grid with irot, ICC, a thumbnail and
    /// Apple's Exif layout, irot with imir, AV1 (8-bit with irot, 8-bit in Display P3 by its nclx,
    /// 10-bit 4:2:2 in BT.601 and in BT.709 video range: dav1d's direct decode), exiftool's Exif item, 10-bit, monochrome, and an
    /// iPhone-like HDR HEIC (its gain map auxiliary image, XMP and Apple maker note mutated too);
    /// and the HDR photos of today's phones as their cameras wrote them (iOS 18's HEIC with its
    /// tmap, Samsung's, an Ultra HDR JPEG with Extended XMP, an iPhone JPEG with Apple's MPF gain
    /// map), with the crafted forms they stand for (a tmap, iOS 26's auxiliary images, Apple's
    /// version 2 JPEG): their tmap, auxiliary types, XMP values and Extended XMP chunks mutated
    /// too; PNG: 8- and 16-bit, gray, palette with tRNS, RGBA, Adam7, an APNG, eXIf after the
    /// image data with GPS, ImageMagick's raw EXIF text, iCCP and XMP (`PNGMutation`). GIF:
    /// static, transparent, interlaced, animated with local palettes; WebP: lossy, lossless with
    /// alpha, lossy with ALPH, animated, and EXIF (GPS), ICCP and XMP chunks. Every mutation is
    /// named `.jpg`, so the HEIF, PNG, GIF and WebP ones are also read by their content, not
    /// their name (prep-photo takes a folder's `.jpg` files whatever their content).
    static let seedFiles = allSeedFiles.filter { file in
        switch environment["PREP_FUZZ_ONLY"] {
        case "heif": isHEIF(file)
        case "avif": file.hasSuffix(".avif")
        case "jpeg": file.hasSuffix(".jpg")
        case "png": isPNG(file)
        case "gif": file.hasSuffix(".gif")
        case "webp": file.hasSuffix(".webp")
        case "gifwebp": file.hasSuffix(".gif") || file.hasSuffix(".webp")
        case "ultrahdr": file.contains("ultrahdr")
        case "gainmap": file.contains("gainmap") || file.contains("hdr")
        case "phones": file.hasPrefix("phones/")
        case "tiff": isTIFF(file)
        case "bmp": isBMP(file)
        case "tiffbmp": isTIFF(file) || isBMP(file)
        default: true
        }
    }

    static let allSeedFiles =
        [
            "corpus/exif-little-endian-canon-40d.jpg", "crafted/gps-north-east.jpg",
            "corpus/offset-minus0400-iphone14promax-p3-mpf.jpg", "corpus/comment-gimp-nikon-d70-xmp-icc.jpg",
            "corpus/ycck-adobe-pillow.jpg", "corpus/grayscale-gray-gamma-icc.jpg", "corpus/truncated-progressive.jpg",
            "corpus/progressive.jpg", "corpus/arithmetic-coded.jpg", "decode/progressive-444-224x150.jpg",
            "decode/restart-every-row-224x150.jpg", "decode/restart-every-row-224x300.jpg",
            "decode/ycc422-odd-223x149.jpg", "crafted/ultrahdr-320x240-iso.jpg",
            "crafted/ultrahdr-320x240-iso-only.jpg",
            "heic/iphone-like-grid-p3-rotated.heic", "heic/orientation-7.heic", "heic/av1-orientation-6.avif",
            "heic/ten-bit/avif-10-bit.avif", "heic/ten-bit/avif-10-bit-bt709-limited.avif",
            "heic/av1-nclx-display-p3.avif",
            "heic/time-offset-gps-exiftool.heic", "heic/ten-bit.heic", "heic/gray.heic",
            "heic/bt709-limited-range.heic",
            "heic/ten-bit/heic-10-bit-bt709-limited.heic", "heic/alpha/rgba-toucan.heic", "heic/alpha/rgba-toucan.avif",
            "heic/gainmap/iphone-hdr-320x240.heic", "heic/gainmap/iphone-hdr-grid.heic",
            "phones/ultrahdr-extended-xmp-lamps.jpg", "phones/iphone-jpeg-apple-gainmap-v1.jpg",
            "heic/gainmap/iphone-hdr-tmap.heic", "heic/gainmap/iphone-ios26-like.heic",
            "crafted/iphone-jpeg-apple-gainmap-v2.jpg",
            "formats/png/png-palette-trns-thumbor.png", "formats/png/png-interlaced-adam7-rgba-pillow.png",
            "formats/png/png-16bit-gray-alpha-iccp-sharp.png", "formats/png/png-apng-palette-trns-dispose-pillow.png",
            "formats/png/im-rgba-gps-south-east.png", "formats/png/crafted-raw-profile-exif-zTXt.png",
            "formats/png/png-iccp-xmp-orientation-pillow.png", "formats/png/png-16bit-rgb-flag-sharp.png",
            "formats/gif-transparent-pillow.gif", "formats/gif-animated-fullcolour-local-palettes-thumbor.gif",
            "formats/gif-animated-phone-screen-recording-android-samples.gif", "formats/gif-offset-frame-crafted.gif",
            "formats/webp-lossy-vp8-photo-twelvemonkeys.webp", "formats/webp-lossless-vp8l-alpha-twelvemonkeys.webp",
            "formats/webp-lossy-alpha-twelvemonkeys.webp", "formats/webp-animated-sharp.webp",
            "formats/webp-exif-iccp-xmp-pillow.webp", "formats/webp-exif-gps-xmp-metadata-extractor.webp",
            "formats/webp-iccp-exif-gps-htc-phone-metadata-extractor.webp",
        ] + tiffAndBMPSeedFiles
        + (mutationCount >= 10_000 || environment["PREP_FUZZ_ONLY"] != nil ? largeSeedFiles : [])

    /// The real phone HEICs, of 24.5 and 7.4 million pixels, which libheif decodes whole (a second
    /// or more each): seeds of long runs (`scripts/fuzz.sh`) and of runs that name their seeds;
    /// the suite's short run takes the crafted files of their layouts (the tmap, iOS 26's).
    static let largeSeedFiles = [
        "phones/iphone15plus-ios18.2-hdr-tmap.heic", "phones/galaxy-s25ultra-hdr-gainmap.heic",
    ]

    /// Real TIFFs and BMPs (Tests/Fixtures/formats): strips and tiles, BigTIFF of both, LZW,
    /// Deflate, JPEG and none, 8- and 16-bit, gray, RGB, CMYK with and without a profile, CIELab,
    /// Exif and GPS IFDs in both byte orders, XMP; BMP palettes, RLE4, RLE8, bit fields with alpha.
    static let tiffAndBMPSeedFiles = [
        "formats/tiff-strips-jpeg-ycbcr-pillow.tif", "formats/tiff-tiles-jpeg-ycbcr-icc-pillow.tif",
        "formats/tiff-16bit-rgb-deflate-tiled-pillow.tiff", "formats/tiff-bigtiff-strips-pillow.tif",
        "formats/tiff-bigtiff-tiles-twelvemonkeys.tif", "formats/tiff-cmyk-jpeg-pillow.tif",
        "formats/tiff-cmyk-lzw-icc-twelvemonkeys.tif", "formats/tiff-exif-gps-16bit-gray-flir-drone-pillow.tiff",
        "formats/tiff-16bit-cielab-lzw-exif-gpsifd-nikon-sharp.tiff",
        "formats/tiff-multipage-deflate-exif-icc-pillow.tif",
        "formats/tiff-lzw-rgb-galaxy-twelvemonkeys.tif", "formats/tiff-palette-lzw-galaxy.tif",
        "formats/bmp-rle4-bmpsuite-pillow.bmp", "formats/bmp-rle8-imagemagick-twelvemonkeys.bmp",
        "formats/bmp-32bit-rgba-v5-bmpsuite-pillow.bmp", "formats/bmp-8bit-palette-twelvemonkeys.bmp",
        "formats/bmp-24bit-twelvemonkeys.bmp",
    ]

    static func isHEIF(_ file: String) -> Bool { file.hasSuffix(".heic") || file.hasSuffix(".avif") }
    static func isTIFF(_ file: String) -> Bool { file.hasSuffix(".tif") || file.hasSuffix(".tiff") }
    static func isBMP(_ file: String) -> Bool { file.hasSuffix(".bmp") }

    static func isPNG(_ file: String) -> Bool { file.hasSuffix(".png") }

    static let environment = ProcessInfo.processInfo.environment
    static let mutationCount = Int(environment["PREP_FUZZ_MUTATIONS"] ?? "") ?? 2400
    static let seed = environment["PREP_FUZZ_SEED"] ?? "imageprep"
    /// Mutations per batch; the batches run in parallel.
    static let batchSize = 300
    static let batches: [Range<Int>] = stride(from: 0, to: mutationCount, by: batchSize).map {
        $0..<min($0 + batchSize, mutationCount)
    }

    /// What one batch of `batchSize` small photos may take: a few seconds' work, so a photo that
    /// loops or a decode that never ends fails the run. And its address space: a decode that
    /// asks for gigabytes fails inside the cap instead of taking the machine (`PREP_FUZZ_MEMORY_MB`,
    /// default 4096, sets it).
    static let timeLimit: Duration = .seconds(300)
    /// `PREP_FUZZ_MEMORY_MB` changes it. It caps address space, not resident memory: a thread's
    /// stack and glibc's malloc arenas reserve far more than they touch, so 400 MB of address
    /// space refuses allocations of files that take 30 MB resident.
    static let memoryLimit = (Int(environment["PREP_FUZZ_MEMORY_MB"] ?? "") ?? 4096) << 20
    /// And the most memory it may hold at once (its peak resident set, `/usr/bin/time`): every
    /// picture a mutated photo brings (a gain map as large as the photo, progressive, a tile named
    /// over and over) within the photo's budget. `PREP_FUZZ_PEAK_MB` sets it (default 400).
    static let peakMegabytes = Int(environment["PREP_FUZZ_PEAK_MB"] ?? "") ?? 400

    /// Small copies keep each photo near a millisecond; a pixel limit just above the largest
    /// seed's (the iPhone 15 Plus's 24.5 million) keeps a mutated frame header from asking for a
    /// far larger (but allowed) decode. The display copy is smaller than the upload, so that it
    /// is resampled on its own.
    static let arguments = [
        "--json", "--jobs", "1", "--max-edge", "32", "--display-edge", "24", "--thumb-edge", "16", "--max-pixels",
        String(maxPixels),
    ]
    /// `PREP_FUZZ_MAX_PIXELS`: a run of small seeds alone (the TIFFs and BMPs) may lower it, so
    /// that a `PREP_FUZZ_MEMORY_MB` of 400 bounds what a mutated size may ask for.
    static let maxPixels = Int(environment["PREP_FUZZ_MAX_PIXELS"] ?? "") ?? 25_000_000

    static func preparer(acceptingIncompleteData: Bool) -> PhotoPreparer {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 32
        configuration.displayEdge = 24
        configuration.thumbnailEdge = 16
        configuration.maxPixels = maxPixels
        configuration.acceptsIncompleteData = acceptingIncompleteData
        // In range, so set on a default preparer rather than through the throwing initialiser.
        var preparer = PhotoPreparer()
        preparer.configuration = configuration
        return preparer
    }

    /// The `number`th mutated photo of the run, damaged by its seed's format.
    static func mutated(_ number: Int, originals: [String: [UInt8]]) -> FuzzCase<PhotoMutation> {
        FuzzCase(
            number: number, seedFiles: seedFiles, originals: originals, runSeed: seed,
            generatorSeed: "\(seed)/\(number)"
        ) { seedFile, original, random in
            if isHEIF(seedFile) {
                .heif(HEIFMutation.random(for: original, using: &random))
            } else if isPNG(seedFile) {
                .png(PNGMutation.random(for: original, using: &random))
            } else if seedFile.hasSuffix(".gif") {
                .gif(GIFMutation.random(for: original, using: &random))
            } else if seedFile.hasSuffix(".webp") {
                .webp(WebPMutation.random(for: original, using: &random))
            } else if isTIFF(seedFile) {
                .tiff(TIFFMutation.random(for: original, using: &random))
            } else if isBMP(seedFile) {
                .bmp(BMPMutation.random(for: original, using: &random))
            } else {
                .jpeg(JPEGMutation.random(for: original, using: &random))
            }
        }
    }

    @Test("each mutation gives the same copies or the same error in a batch and alone", arguments: batches)
    func batch(numbers: Range<Int>) throws {
        var originals: [String: [UInt8]] = [:]
        for file in Self.seedFiles { originals[file] = [UInt8](try Data(contentsOf: Fixtures.url(file))) }
        let coordinates = try originals.mapValues(Self.coordinateDigits)
        let harness = BatchAgainstAlone<PhotoMutation>(
            arguments: Self.arguments, timeLimit: Self.timeLimit, addressSpaceLimit: Self.memoryLimit,
            peakMegabytes: Self.peakMegabytes, outcomeShare: 10, preparer: Self.preparer(acceptingIncompleteData:),
            checkRun: { run in
                let seedsInBatch = Set(run.cases.map(\.seedFile))
                Self.expectNoCoordinates(
                    in: run.result.standardError, of: seedsInBatch.flatMap { coordinates[$0]! }, label: "stderr")
                let written = (try? run.folder.names(in: run.outputs)) ?? []
                #expect(written.count == 3 * run.reports.filter(\.ok).count, "exactly the copies reported, no others")
            },
            checkAlone: { item, report, alone in
                let seedCoordinates = coordinates[item.seedFile]!
                Self.expectNoCoordinates(
                    in: ([report.error ?? ""] + report.warnings).joined(separator: "\n"), of: seedCoordinates,
                    label: item.label)
                switch alone {
                case .failure(let error):
                    Self.expectNoCoordinates(in: error.description, of: seedCoordinates, label: item.label)
                    #expect(error.file == item.input && error.description.contains("'\(item.input)'"), "\(item.label)")
                case .success(let photo):
                    Self.expectNoCoordinates(
                        in: photo.warnings.map(\.message).joined(separator: "\n"), of: seedCoordinates,
                        label: item.label)
                }
            },
            checkCopies: { item, photo in SegmentRules.check(photo, original: item.bytes, label: item.label) })
        try harness.run(numbers.map { Self.mutated($0, originals: originals) })
    }

    /// How a seed's position could show in text: its latitude and longitude in decimal degrees,
    /// to two decimals, cut and rounded (none for a seed without GPS).
    static func coordinateDigits(of original: [UInt8]) throws -> [String] {
        let photo = try preparer(acceptingIncompleteData: true).prepareBlocking(Data(original), name: "seed")
        guard let location = photo.metadata.location else { return [] }
        return [location.latitude, location.longitude].flatMap { degrees in
            let hundredths = abs(degrees) * 100
            return [hundredths.rounded(.down), hundredths.rounded()].map { String(format: "%.2f", $0 / 100) }
        }
    }

    static func expectNoCoordinates(in text: String, of digits: [String], label: String) {
        for number in digits where text.contains(number) {
            Issue.record("\(label): the seed's coordinate \(number) shows in: \(text)")
        }
    }
}

/// One way to damage a seed file, by its format.
enum PhotoMutation: SeedMutation {
    case jpeg(JPEGMutation)
    case heif(HEIFMutation)
    case png(PNGMutation)
    case gif(ByteEdit)
    case webp(ByteEdit)
    case tiff(TIFFMutation)
    case bmp(BMPMutation)

    func apply(to original: [UInt8]) -> [UInt8] {
        switch self {
        case .jpeg(let mutation): mutation.apply(to: original)
        case .heif(let mutation): mutation.apply(to: original)
        case .png(let mutation): mutation.apply(to: original)
        case .gif(let edit), .webp(let edit): edit.apply(to: original)
        case .tiff(let mutation): mutation.apply(to: original)
        case .bmp(let mutation): mutation.apply(to: original)
        }
    }

    var description: String {
        switch self {
        case .jpeg(let mutation): mutation.description
        case .heif(let mutation): mutation.description
        case .png(let mutation): mutation.description
        case .gif(let edit), .webp(let edit): edit.description
        case .tiff(let mutation): mutation.description
        case .bmp(let mutation): mutation.description
        }
    }
}

/// What each copy may hold, and that it decodes cleanly.
enum SegmentRules {
    /// The upload copy: JFIF, then the original's EXIF APP1 (patched, so the same length), its
    /// ICC chunks (not for CMYK) and its comments byte for byte, then only TurboJPEG's tables,
    /// frame and one scan, and EOI last; an Ultra HDR upload has our XMP, the original's ISO
    /// 21496-1 segments and our MPF index after the EXIF, and its gain map after the EOI. The
    /// stripped copies: JFIF and the comments only.
    static func check(_ photo: PreparedPhoto, original: Data, label: String) {
        if original.withUnsafeBytes({ HEIFContainer.hasSignature($0) }) {
            checkHEIF(photo, label: label)
            return
        }
        if original.withUnsafeBytes({ PNGSource.recognizes($0) }) {
            checkPNG(photo, label: label)
            return
        }
        // A GIF's, WebP's, TIFF's or BMP's upload carries what it builds (EXIF, XMP, ICC), as a
        // HEIF file's does.
        if original.withUnsafeBytes({ !JPEGSource.recognizes($0) }) {
            checkHEIF(photo, carriesXMP: true, label: label)
            return
        }
        let (exif, icc, comments, isCMYK) = original.withUnsafeBytes { bytes in
            let layout = SegmentWalker.walk(bytes)
            return (
                layout.exifSegment(in: bytes).map { bytes[$0.bytes].count },
                layout.iccSegments(in: bytes).map { bytes.data(in: $0.bytes) },
                layout.commentSegments.map { bytes.data(in: $0.bytes) }, layout.frame?.componentCount == 4
            )
        }
        var carried = segments(of: photo.upload.data)
        #expect(carried.first?.marker == JPEGSegment.app0, "\(label): the upload does not start with JFIF")
        carried.removeFirst(min(1, carried.count))
        if let exif {
            let next = carried.first
            #expect(next?.marker == JPEGSegment.app1 && next?.bytes.count == exif, "\(label): the upload's EXIF")
            carried.removeFirst(min(1, carried.count))
        }
        if let gainMap = photo.uploadGainMap {
            checkGainMap(gainMap, of: photo, segments: &carried, label: label)
        }
        let wanted = (isCMYK ? [] : icc) + comments
        #expect(carried.prefix(wanted.count).map(\.bytes) == wanted, "\(label): the upload's ICC and COM segments")
        expectOnlyImageSegments(carried.dropFirst(wanted.count), in: photo.upload.data, label: "\(label): the upload")

        for copy in [photo.display, photo.thumbnail].compactMap({ $0 }) {
            var stripped = segments(of: copy.data)
            #expect(stripped.first?.marker == JPEGSegment.app0, "\(label): a stripped copy does not start with JFIF")
            stripped.removeFirst(min(1, stripped.count))
            #expect(stripped.prefix(comments.count).map(\.bytes) == comments, "\(label): a stripped copy's COM")
            expectOnlyImageSegments(
                stripped.dropFirst(comments.count), in: copy.data, label: "\(label): a stripped copy")
        }

        checkDecoding(photo, label: label)
    }

    /// An Ultra HDR upload's segments for its gain map (our XMP, the ISO 21496-1 segments, our
    /// MPF index), taken off the front of `segments`, and the gain map at the upload's end, which
    /// decodes cleanly at its size.
    static func checkGainMap(
        _ gainMap: EncodedJPEG, of photo: PreparedPhoto, segments: inout [(marker: UInt8, bytes: Data)],
        label: String
    ) {
        func starts(_ segment: (marker: UInt8, bytes: Data)?, _ marker: UInt8, _ signature: [UInt8]) -> Bool {
            segment?.marker == marker && segment?.bytes.dropFirst(4).starts(with: signature) == true
        }
        #expect(starts(segments.first, JPEGSegment.app1, GainMapMetadata.xmpSignature), "\(label): the upload's XMP")
        segments.removeFirst(min(1, segments.count))
        while starts(segments.first, JPEGSegment.app2, UltraHDRSource.isoSignature) { segments.removeFirst() }
        #expect(starts(segments.first, JPEGSegment.app2, MPFIndex.signature), "\(label): the upload's MPF index")
        segments.removeFirst(min(1, segments.count))
        #expect(photo.upload.data.suffix(gainMap.data.count) == gainMap.data, "\(label): the gain map at the end")
        do {
            let decoded = try FuzzTests.preparer(acceptingIncompleteData: false).prepareBlocking(
                gainMap.data, name: "gain map")
            #expect(decoded.metadata.originalSize == gainMap.size, "\(label)")
            #expect(!decoded.warnings.contains { $0.kind == .imageData }, "\(label): \(decoded.warnings)")
        } catch {
            Issue.record("\(label): the gain map does not decode: \(error)")
        }
    }

    /// Every copy is a JPEG that decodes without a word about its image data, at its size; an
    /// Ultra HDR upload is read back as one, without a word about its gain map.
    static func checkDecoding(_ photo: PreparedPhoto, label: String) {
        let strict = FuzzTests.preparer(acceptingIncompleteData: false)
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            do {
                let again = try strict.prepareBlocking(copy.data, name: "copy")
                #expect(again.metadata.originalSize == copy.size, "\(label)")
                #expect(
                    !again.warnings.contains { $0.kind == .imageData || $0.kind == .incompleteImageData },
                    "\(label): \(again.warnings)")
                if copy == photo.upload, photo.uploadGainMap != nil {
                    #expect(again.uploadGainMap != nil && !again.warnings.contains { $0.kind == .gainMap }, "\(label)")
                }
            } catch {
                Issue.record("\(label): a copy does not decode: \(error)")
            }
        }
    }

    /// From a HEIF original: the upload holds JFIF, an EXIF APP1 or none, an Ultra HDR upload's
    /// XMP and MPF index, ICC chunks or none, then only TurboJPEG's own segments; the stripped
    /// copies JFIF and those alone. From a GIF or WebP original (`carriesXMP`), the same with an
    /// XMP APP1 or none after the EXIF.
    static func checkHEIF(_ photo: PreparedPhoto, carriesXMP: Bool = false, label: String) {
        var carried = segments(of: photo.upload.data)
        #expect(carried.first?.marker == JPEGSegment.app0, "\(label): the upload does not start with JFIF")
        carried.removeFirst(min(1, carried.count))
        // The EXIF, where the Exif item gave one (a gain map described by a tmap needs none).
        if let next = carried.first, next.marker == JPEGSegment.app1,
            next.bytes.dropFirst(4).starts(with: JPEGLayout.exifSignature)
        {
            carried.removeFirst()
        }
        // The format's own XMP (a GIF's, WebP's, TIFF's; a HEIF upload's own XMP is the gain map's, checked below).
        if carriesXMP, let next = carried.first, next.marker == JPEGSegment.app1,
            next.bytes.dropFirst(4).starts(with: GainMapMetadata.xmpSignature)
        {
            carried.removeFirst()
        }
        // An iPhone HDR HEIC's upload is Ultra HDR: our XMP and MPF index come before the ICC.
        if let gainMap = photo.uploadGainMap {
            checkGainMap(gainMap, of: photo, segments: &carried, label: label)
        }
        checkProfileAndRest(carried, of: photo, label: label)
    }

    /// From a PNG original: the upload holds JFIF, an EXIF APP1 or none, an XMP APP1 or none, ICC
    /// chunks or none, then only TurboJPEG's own segments; the stripped copies JFIF alone.
    static func checkPNG(_ photo: PreparedPhoto, label: String) {
        var carried = segments(of: photo.upload.data)
        #expect(carried.first?.marker == JPEGSegment.app0, "\(label): the upload does not start with JFIF")
        carried.removeFirst(min(1, carried.count))
        for signature in [JPEGLayout.exifSignature, GainMapMetadata.xmpSignature] {
            if let next = carried.first, next.marker == JPEGSegment.app1,
                next.bytes.dropFirst(4).starts(with: signature)
            {
                carried.removeFirst()
            }
        }
        checkProfileAndRest(carried, of: photo, label: label)
    }

    /// What follows a HEIF's or a PNG's EXIF and XMP in the upload: ICC chunks or none, then only
    /// TurboJPEG's own segments; and stripped copies of JFIF alone, every copy decoding cleanly.
    private static func checkProfileAndRest(
        _ carried: [(marker: UInt8, bytes: Data)], of photo: PreparedPhoto, label: String
    ) {
        var carried = carried[...]
        while let next = carried.first, next.marker == JPEGSegment.app2 {
            #expect(next.bytes.dropFirst(4).starts(with: JPEGLayout.iccSignature), "\(label): the upload's APP2")
            carried.removeFirst()
        }
        expectOnlyImageSegments(carried, in: photo.upload.data, label: "\(label): the upload")
        for copy in [photo.display, photo.thumbnail].compactMap({ $0 }) {
            let stripped = segments(of: copy.data)
            #expect(stripped.first?.marker == JPEGSegment.app0, "\(label): a stripped copy does not start with JFIF")
            expectOnlyImageSegments(stripped.dropFirst(), in: copy.data, label: "\(label): a stripped copy")
        }
        checkDecoding(photo, label: label)
    }

    private static func segments(of jpeg: Data) -> [(marker: UInt8, bytes: Data)] {
        jpeg.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).segments.map { (marker: $0.marker, bytes: bytes.data(in: $0.bytes)) }
        }
    }

    /// Tables, one baseline frame, the scan header, then entropy-coded data straight to EOI.
    private static func expectOnlyImageSegments(
        _ rest: ArraySlice<(marker: UInt8, bytes: Data)>, in jpeg: Data, label: String
    ) {
        let markers = rest.map(\.marker)
        #expect(markers.allSatisfy { [0xDB, 0xC4, 0xC0, 0xDD, 0xDA].contains($0) }, "\(label): \(markers)")
        #expect(markers.filter { $0 == 0xC0 }.count == 1 && markers.last == JPEGSegment.startOfScan, "\(label)")
        #expect(jpeg.suffix(2) == Data([0xFF, JPEGSegment.endOfImage]), "\(label): no EOI at the end")
    }
}
