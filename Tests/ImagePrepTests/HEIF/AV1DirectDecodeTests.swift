import Foundation
import Testing

@testable import ImagePrep

/// A single coded AV1 image that ImagePrep decodes itself with dav1d (`directAV1Upload`): its
/// pixels are libheif's decode of the same picture within a stated bound, and whatever libheif
/// refuses, or would decode from another picture, goes to libheif (and is refused) as before.
@Suite("AVIF decoded by dav1d directly")
struct AV1DirectDecodeTests {
    /// Every AVIF of the fixtures: heic/, heic/ten-bit/, heic/hostile/, peers/.
    static let files = LibheifAgreementTests.files.filter { $0.hasSuffix(".avif") }

    /// The Y, Cb and Cr samples of an upload.
    static func samples(of image: PlanarImage) -> [[UInt8]] {
        (0..<3).map { index in
            let (horizontal, vertical) =
                index == 0 ? (1, 1) : (image.subsampling.horizontal, image.subsampling.vertical)
            let width = (image.size.width + horizontal - 1) / horizontal
            let height = (image.size.height + vertical - 1) / vertical
            let plane = image.planes[index]
            return (0..<height).flatMap { y in Array(UnsafeBufferPointer(start: plane.row(y), count: width)) }
        }
    }

    /// The primary of `data` at full size, by dav1d directly or by libheif (`HEIFBandUpload`, from
    /// libheif's RGB planes): nil when the direct decode does not cover the file or gives it back
    /// to libheif.
    static func fullSizeSamples(of data: Data, directly: Bool, file: String) throws -> [[UInt8]]? {
        try data.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let plan = try container.decodePlan()
            guard let image = container.av1Image(plan: plan) else { return nil }
            let source = HEIFSource(
                context: PreparationContext(
                    configuration: .init(), workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false), file: file))
            let libheif = try Libheif.shared(for: file)
            let context = try HEIFContext(bytes, libheif: libheif, decodingThreads: 0, file: file)
            let handle = try context.primaryImage(file: file)
            let nclx = handle.nclx
            let upload =
                directly
                ? try source.directAV1Upload(image, nclx: nclx, uploadSize: image.size)
                : try HEIFBandUpload.decode(
                    handle, plan: plan, nclx: nclx, context: source.context, uploadSize: image.size)?.image
            return upload.map(samples(of:))
        }
    }

    /// The mean and the largest difference of two sets of planes, in levels.
    static func difference(_ a: [[UInt8]], _ b: [[UInt8]]) -> (mean: Double, max: Int) {
        var sum = 0
        var largest = 0
        var count = 0
        for (first, second) in zip(a, b) {
            for (x, y) in zip(first, second) {
                let difference = abs(Int(x) - Int(y))
                sum += difference
                largest = max(largest, difference)
            }
            count += first.count
        }
        return (Double(sum) / Double(max(count, 1)), largest)
    }

    static func preparer(directly: Bool) throws -> PhotoPreparer {
        var configuration = PhotoPreparer.Configuration()
        configuration.decodesAV1Directly = directly
        return try PhotoPreparer(configuration: configuration)
    }

    /// `data` prepared with the direct decode and through libheif alone.
    static func preparedBothWays(_ data: Data) throws -> (
        direct: Result<PreparedPhoto, ImagePrepError>, libheif: Result<PreparedPhoto, ImagePrepError>
    ) {
        let (direct, libheif) = (try preparer(directly: true), try preparer(directly: false))
        return (
            Result { () throws(ImagePrepError) in try direct.prepareBlocking(data, name: "photo.avif") },
            Result { () throws(ImagePrepError) in try libheif.prepareBlocking(data, name: "photo.avif") }
        )
    }

    @Test(
        "every AVIF fixture the direct decode covers gives libheif's samples at full size, within 0.2 levels on average and 2 at most"
    )
    func samplesAsLibheifs() throws {
        var covered = 0
        for path in Self.files {
            let data = try Fixtures.data(path)
            guard let direct = try Self.fullSizeSamples(of: data, directly: true, file: path) else { continue }
            let libheif = try #require(try Self.fullSizeSamples(of: data, directly: false, file: path), "\(path)")
            try #require(direct.map(\.count) == libheif.map(\.count), "\(path)")
            covered += 1
            // libheif rounds each 10-bit sample to RGB at 10 bits, then to 8; the direct decode
            // rounds once (0.11 levels on average, 2 at most seen; 8-bit ones are identical).
            let (mean, largest) = Self.difference(direct, libheif)
            #expect(mean < 0.2 && largest <= 2, "\(path): \(mean) levels on average, \(largest) at most")
        }
        // The four 10-bit and 8-bit single images of heic/ and heic/ten-bit/, and the 12 MP one.
        #expect(covered >= 5, "\(covered) AVIF fixtures decoded directly")
    }

    @Test(
        "every AVIF fixture prepares as it does through libheif: the same refusal, warnings and size, and an upload within JPEG's noise of it"
    )
    func preparedAsThroughLibheif() throws {
        #expect(Self.files.count >= 6, "\(Self.files)")
        for path in Self.files {
            let data = try Fixtures.data(path)
            let (direct, libheif) = try Self.preparedBothWays(data)
            switch (direct, libheif) {
            case (.failure(let first), .failure(let second)):
                #expect(first.description == second.description, "\(path)")
            case (.success(let first), .success(let second)):
                #expect(first.warnings.map(\.message) == second.warnings.map(\.message), "\(path)")
                #expect(first.upload.size == second.upload.size, "\(path)")
                let a = try #require(try DecodedJPEG(first.upload.data, makingRGB: true).rgb)
                let b = try #require(try DecodedJPEG(second.upload.data, makingRGB: true).rgb)
                let (mean, largest) = Self.difference([a], [b])
                // Both uploads go through a JPEG encode, whose quantisation an edge's level apart
                // can round a block differently: 0.8 levels on average and 22 at most seen.
                #expect(mean < 1 && largest <= 32, "\(path): \(mean) levels on average, \(largest) at most")
            default:
                Issue.record("\(path): directly \(direct), through libheif \(libheif)")
            }
        }
    }

    /// `heic/ten-bit/avif-10-bit.avif` with its AV1 data changed by `change` (the primary's
    /// data, and the `ispe` payload's range).
    static func mutated(_ change: (inout [UInt8], _ data: Range<Int>, _ ispe: Range<Int>) -> Void) throws -> Data {
        var bytes = [UInt8](try Fixtures.data("heic/ten-bit/avif-10-bit.avif"))
        let (data, ispe) = try bytes.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let item = try #require(container.primary.flatMap { container.items[$0] })
            return (try #require(item.extents.first), try #require(container.property(.ispe, of: item)))
        }
        change(&bytes, data, ispe)
        return Data(bytes)
    }

    @Test("an AV1 stream dav1d refuses is refused as libheif refuses it, not decoded directly")
    func refusedStream() throws {
        // Every byte of the data 0xFF: its first OBU header has its forbidden bit set.
        let data = try Self.mutated { bytes, data, _ in
            for index in data { bytes[index] = 0xFF }
        }
        #expect(try LibheifAgreementTests.libheifDecodes(data) == false, "libheif refuses it")
        #expect(try Self.fullSizeSamples(of: data, directly: true, file: "photo.avif") == nil)
        let (direct, libheif) = try Self.preparedBothWays(data)
        guard case .failure(let error) = direct, case .failure(let libheifError) = libheif else {
            Issue.record("directly \(direct), through libheif \(libheif)")
            return
        }
        #expect(error.description == libheifError.description)
    }

    @Test("a picture of another size than the item's ispe goes to libheif, and prepares as it does there")
    func otherSizeThanDeclared() throws {
        // The ispe 2 pixels narrower than the picture (448 to 446).
        let data = try Self.mutated { bytes, _, ispe in bytes[ispe.lowerBound + 7] -= 2 }
        #expect(try Self.fullSizeSamples(of: data, directly: true, file: "photo.avif") == nil)
        let (direct, libheif) = try Self.preparedBothWays(data)
        switch (direct, libheif) {
        case (.failure(let first), .failure(let second)): #expect(first.description == second.description)
        case (.success(let first), .success(let second)): #expect(first.upload.data == second.upload.data)
        default: Issue.record("directly \(direct), through libheif \(libheif)")
        }
    }

    @Test(
        "a picture dav1d would hold within the budget but libheif not is refused from its header when it goes to libheif after all"
    )
    func libheifHeldToTheBudget() throws {
        // The ispe says 8000x6000 (48 MP, 10-bit 4:2:2): dav1d's 240 MB fits, libheif's 840 do
        // not; the picture, 448x300, is not what it says, so the photo would go to libheif.
        let data = try Self.mutated { bytes, _, ispe in
            bytes.replaceSubrange(
                (ispe.lowerBound + 4)..<(ispe.lowerBound + 12), with: [0, 0, 0x1F, 0x40, 0, 0, 0x17, 0x70])
        }
        let (direct, libheif) = try Self.preparedBothWays(data)
        for result in [direct, libheif] {
            guard case .failure(let error) = result, case .tooMuchMemory = error else {
                Issue.record("\(result)")
                continue
            }
        }
    }

    @Test("the 10-bit AVIF fixtures are decoded directly: the decode is a stream of rows")
    func takesTheDirectPath() throws {
        for path in ["heic/ten-bit/avif-10-bit.avif", "heic/ten-bit/avif-10-bit-bt709-limited.avif"] {
            let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
            _ = try PhotoPreparer().prepareBlocking(try Fixtures.data(path), name: "photo.avif", workspace: workspace)
            #expect(workspace.lastDecode.isStripWise, "\(path)")
            let throughLibheif = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
            _ = try Self.preparer(directly: false).prepareBlocking(
                try Fixtures.data(path), name: "photo.avif", workspace: throughLibheif)
            #expect(!throughLibheif.lastDecode.isStripWise, "\(path)")
        }
    }

    @Test(
        "what dav1d holds decoded directly: a 50 MP 10-bit 4:2:2 AVIF fits the budget, which it did not through libheif; 200 MP does not"
    )
    func pictureMemory() {
        let tenBit = HEIFContainer.CodedFormat(chroma: .yuv422, bitDepth: 10)
        let fifty = PixelSize(width: 8640, height: 5760)
        let twoHundred = PixelSize(width: 16320, height: 12240)
        #expect(
            HEIFPictureMemory.bytes(of: fifty, format: tenBit, codec: .av1, throughLibheif: false)
                <= DecodeMemoryBudget.bytes)
        #expect(
            HEIFPictureMemory.bytes(of: fifty, format: tenBit, codec: .av1, throughLibheif: true)
                > DecodeMemoryBudget.bytes)
        #expect(
            HEIFPictureMemory.bytes(of: twoHundred, format: tenBit, codec: .av1, throughLibheif: false)
                > DecodeMemoryBudget.bytes)
        // The 20 MP one measured: 120 MB in all, the picture 80 MB.
        let twenty = PixelSize(width: 5472, height: 3648)
        let counted = HEIFPictureMemory.bytes(of: twenty, format: tenBit, codec: .av1, throughLibheif: false)
        #expect(counted >= 95_000_000 && counted <= 120_000_000, "\(counted)")
    }
}
