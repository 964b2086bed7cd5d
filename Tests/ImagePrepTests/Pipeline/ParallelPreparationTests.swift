import Foundation
import PlatformLayer
import Testing

@testable import ImagePrep

@Suite("One photo on two threads")
struct ParallelPreparationTests {
    /// Splitting the work must change nothing: every output row is computed the same way
    /// whichever thread makes it, whether the strips are resampled on a second thread, or two
    /// decoders each make a band of a photo cut at a restart marker, or the copies are made on
    /// two lanes.
    @Test(
        "splitting a photo's work across cores gives byte-identical copies",
        arguments: [
            "corpus/phone-orientation6-samsung-j3.jpg",  // turned, downscaled
            "corpus/gps-north-west-display-p3-nikon.jpg",  // colour-converted, restart markers
            "corpus/xmp-bluesquare-adobe-sample.jpg",  // 4:2:0 with restart markers
            "decode/ycc422-odd-223x149.jpg",  // odd size, 4:2:2
            "decode/gray-224x150.jpg",
            "decode/restart-every-row-224x300.jpg",
            "decode/restart-every-row-422-odd-223x149.jpg",
            "decode/restart-every-2-rows-gray-224x150.jpg",
            "decode/restart-7-mcus-224x150.jpg",
        ], [100, 40, 32])
    func splitWorkIsIdentical(path: String, maxEdge: Int) throws {
        let data = try Fixtures.data(path)
        var configuration = PhotoPreparer.Configuration()
        // 40 px decodes at a DCT scale of 1/2 or less, 100 px mostly at full size; at 32 px (the
        // fuzz test's size) the bottom of a cut 224x150 photo is too small to make a row alone.
        configuration.maxEdge = path.hasPrefix("decode") ? maxEdge : maxEdge * 10
        let aloneWorkspace = PreparationWorkspace()
        let alone = try PhotoPreparer(configuration: configuration).prepareBlocking(
            data, name: path, workspace: aloneWorkspace)
        configuration.splitsWorkAcrossCores = true
        let splitWorkspace = PreparationWorkspace()
        let split = try PhotoPreparer(configuration: configuration).prepareBlocking(
            data, name: path, workspace: splitWorkspace)
        // The same decode, not a fall back to the whole one, whose pixels differ.
        #expect(splitWorkspace.lastDecode.size == aloneWorkspace.lastDecode.size)
        #expect(splitWorkspace.lastDecode.isStripWise == aloneWorkspace.lastDecode.isStripWise)
        #expect(split.upload == alone.upload)
        #expect(split.display == alone.display)
        #expect(split.thumbnail == alone.thumbnail)
        #expect(split.warnings == alone.warnings)
    }

    /// The photos whose restart markers allow a cut are decoded by two decoders at once, and
    /// only when the work may take two cores; the others, and a photo damaged below the cut,
    /// decode as one (the damaged one whole, with the same warning as without a cut).
    @Test(
        "a photo with restart markers at MCU rows is decoded in two bands at once",
        arguments: [
            ("decode/restart-every-row-224x300.jpg", true),
            ("decode/restart-every-row-flat-top-224x300.jpg", true),
            ("decode/restart-every-row-422-odd-223x149.jpg", true),
            ("decode/restart-every-2-rows-gray-224x150.jpg", true),
            ("corpus/gps-north-west-display-p3-nikon.jpg", true),
            ("decode/restart-7-mcus-224x150.jpg", false),
            ("decode/ycc420-224x150.jpg", false),
            ("decode/restart-every-row-corrupt-bottom-224x300.jpg", false),
        ])
    func restartMarkersCutThePhoto(path: String, isCut: Bool) throws {
        let data = try Fixtures.data(path)
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 100
        configuration.acceptsIncompleteData = true
        let workspace = PreparationWorkspace()
        let alone = try PhotoPreparer(configuration: configuration).prepareBlocking(
            data, name: path, workspace: workspace)
        #expect(!workspace.lastDecode.isCutInTwo)
        configuration.splitsWorkAcrossCores = true
        let split = try PhotoPreparer(configuration: configuration).prepareBlocking(
            data, name: path, workspace: workspace)
        #expect(workspace.lastDecode.isCutInTwo == isCut)
        #expect(split.upload == alone.upload)
        #expect(split.warnings == alone.warnings)
        if path.contains("corrupt") {
            #expect(!workspace.lastDecode.isStripWise)
            #expect(split.warnings.contains { $0.kind == .incompleteImageData || $0.kind == .imageData })
        }
    }

    /// Where the cut falls, and that a restart marker out of sequence before it means no cut:
    /// libjpeg would have resynchronised there, which the bottom's decoder could not know.
    @Test("the cut is at a multiple of 8 intervals, after markers in sequence")
    func cutFollowsMarkers() throws {
        var bytes = [UInt8](try Fixtures.data("decode/restart-every-row-224x300.jpg"))
        let cut = bytes.withUnsafeBytes { RestartSplit.find(in: $0, layout: SegmentWalker.walk($0)) }
        #expect(cut?.mcuRow == 8)
        // The bottom is a JPEG of its own: libjpeg-turbo reads its header as 224x(300 - 8 * 16).
        if let cut {
            let bottom = cut.bottomHead + bytes[cut.bottomDataStart...]
            let header = try bottom.withUnsafeBytes { bytes in
                try JPEGDecoder.readHeader(bytes, decompressor: Decompressor(file: "bottom"), file: "bottom")
            }
            #expect(header.size == PixelSize(width: 224, height: 172))
        }
        // RST3, the fourth marker, turned into RST4.
        var markers = 0
        let scanStart = bytes.withUnsafeBytes { SegmentWalker.walk($0).segments.last!.bytes.upperBound }
        for index in scanStart..<(bytes.count - 1)
        where bytes[index] == 0xFF && (0xD0...0xD7).contains(bytes[index + 1]) {
            markers += 1
            if markers == 4 {
                #expect(bytes[index + 1] == 0xD3)
                bytes[index + 1] = 0xD4
                break
            }
        }
        #expect(bytes.withUnsafeBytes { RestartSplit.find(in: $0, layout: SegmentWalker.walk($0)) } == nil)
    }

    /// Decoding time follows the entropy-coded bytes, not the rows: a photo flat in its top two
    /// thirds is cut where its bytes halve (MCU row 16 of 19), not where its rows do (row 8).
    @Test("the cut is the allowed interval nearest half the entropy-coded bytes")
    func cutHalvesTheBytes() throws {
        let bytes = [UInt8](try Fixtures.data("decode/restart-every-row-flat-top-224x300.jpg"))
        // Where each interval starts (after its marker) and where the scan ends (the EOI).
        let scanStart = bytes.withUnsafeBytes { SegmentWalker.walk($0).segments.last!.bytes.upperBound }
        var intervalStarts: [Int] = []
        var scanEnd = bytes.count
        var index = scanStart
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] != 0x00 {
                guard (0xD0...0xD7).contains(bytes[index + 1]) else {
                    scanEnd = index
                    break
                }
                intervalStarts.append(index + 2)
            }
            index += 1
        }
        let half = scanStart + (scanEnd - scanStart) / 2
        let nearest = [8, 16].min { abs(intervalStarts[$0 - 1] - half) < abs(intervalStarts[$1 - 1] - half) }
        #expect(nearest == 16)
        let cut = bytes.withUnsafeBytes { RestartSplit.find(in: $0, layout: SegmentWalker.walk($0)) }
        #expect(cut?.mcuRow == 16)
        #expect(cut?.bottomDataStart == intervalStarts[15])
    }

    /// The pipeline hands every item over once, in order, and never lets the producer refill a
    /// slot before the consumer is done with it. Items go over a batch at a time (the last ones
    /// when the producer ends), so that the producer wakes the consumer once per batch.
    @Test(
        "a pipeline's consumer sees every item in order, its slot untouched, once its batch is made",
        arguments: [(slots: 3, batch: 1), (slots: 3, batch: 3), (slots: 8, batch: 4), (slots: 5, batch: 3)])
    func pipelineKeepsOrderAndSlots(slots: Int, batch: Int) {
        // Not a multiple of the batches of 3 or 4: the last items go over when the producer ends.
        let count = 2002
        // What each slot holds, written by the producer and read by the consumer.
        var contents = [Int](repeating: -1, count: slots)
        var seen: [Int] = []
        let made = Locked(0)
        // How many items were made when the consumer took each one.
        var madeWhenTaken: [Int] = []
        contents.withUnsafeMutableBufferPointer { contents in
            Parallel.pipeline(slots: slots, batch: batch) { slot -> (slot: Int, value: Int)? in
                let value = made.withLock { $0 }
                guard value < count else { return nil }
                contents[slot] = value
                made.withLock { $0 += 1 }
                return (slot, value)
            } consume: { item in
                // Slow down now and then, so that the producer runs ahead and waits.
                if item.value % 97 == 0 { usleep(200) }
                madeWhenTaken.append(made.withLock { $0 })
                seen.append(contents[item.slot] == item.value ? item.value : -1)
            }
        }
        #expect(seen == Array(0..<count))
        let firstTakenEarly = madeWhenTaken.indices.first { madeWhenTaken[$0] < min(count, ($0 / batch + 1) * batch) }
        #expect(firstTakenEarly == nil, "an item was taken before its whole batch was made")
    }
}
