import Foundation
import Testing

@testable import ImagePrep

/// Real HEIF fixtures damaged in thousands of seeded, box-aware ways: every result must be a
/// thrown `ImagePrepError` that names the file, or a photo whose three copies are valid JPEGs.
/// A crash or a hang fails the run. The JPEG fuzz test's rules (`FuzzTests`), for HEIF.
@Suite("Mutated HEIF files never crash the pipeline")
struct HEIFFuzzTests {
    /// Between them: a grid with irot, ICC, a thumbnail and Apple's Exif layout; irot with imir;
    /// AV1; exiftool's Exif item; heif-enc's Exif and ICC and XMP; 10-bit; monochrome.
    static let seeds = [
        "heic/iphone-like-grid-p3-rotated.heic", "heic/orientation-7.heic", "heic/av1-orientation-6.avif",
        "heic/time-offset-gps-exiftool.heic", "heic/display-p3-gps.heic", "heic/ten-bit.heic", "heic/gray.heic",
    ]
    static let iterationsPerSeed = Int(ProcessInfo.processInfo.environment["PREP_FUZZ_HEIF_ITERATIONS"] ?? "") ?? 300

    @Test(
        "truncations, flipped bytes, bogus box sizes and fields, duplicated or removed boxes give an error or valid JPEGs",
        arguments: seeds)
    func mutations(path: String) throws {
        let original = [UInt8](try Fixtures.data(path))
        let boxes = HEIFBoxes(original)
        var random = SeededGenerator(seed: path)
        let name = HEIFFixtures.name(path)
        let workspace = PreparationWorkspace()
        var outcomes = (errors: 0, photos: 0)
        for iteration in 0..<Self.iterationsPerSeed {
            let mutation = HEIFMutation.random(for: original, boxes: boxes, using: &random)
            let mutated = Data(mutation.apply(to: original))
            let label = "\(name) #\(iteration): \(mutation)"
            let preparer = PhotoPreparer(
                configuration: FuzzTests.configuration(acceptingIncompleteData: iteration % 2 == 1))
            do {
                let photo = try preparer.prepare(mutated, name: label, workspace: workspace)
                outcomes.photos += 1
                #expect(photo.upload.size.longEdge <= 32, "\(label)")
                for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
                    do {
                        let decoded = try DecodedJPEG(copy.data)
                        #expect(decoded.size == copy.size && decoded.warnings.isEmpty, "\(label)")
                    } catch {
                        Issue.record("\(label): a copy does not decode: \(error)")
                    }
                }
            } catch {
                outcomes.errors += 1
                #expect(error.file == label && error.description.contains(label))
                if case .encodingFailed = error { Issue.record("\(label): \(error)") }
            }
        }
        #expect(
            outcomes.errors > Self.iterationsPerSeed / 10 && outcomes.photos > Self.iterationsPerSeed / 10,
            "\(outcomes)")
    }
}

/// Where the boxes of a HEIF file are: the top level, and inside the boxes that hold boxes.
struct HEIFBoxes {
    /// Offsets of box headers, and where the `meta` box lies.
    var headers: [Int] = []
    var meta: Range<Int> = 0..<0

    /// Boxes that hold boxes, and how many bytes come before their first child.
    static let containers: [String: Int] = ["meta": 4, "iprp": 0, "ipco": 0, "iinf": 6, "iref": 4, "dinf": 0]

    init(_ bytes: [UInt8]) { walk(bytes, 0..<bytes.count) }

    private mutating func walk(_ bytes: [UInt8], _ range: Range<Int>) {
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= range.upperBound else { return }
            headers.append(offset)
            if type == "meta" { meta = offset..<(offset + size) }
            if let skip = Self.containers[type] { walk(bytes, (offset + 8 + skip)..<(offset + size)) }
            offset += size
        }
    }
}

/// One way to damage a HEIF file, chosen by the seeded generator and described in failures.
enum HEIFMutation: CustomStringConvertible {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    case boxSize(header: Int, size: UInt32)
    case field(offset: Int, value: UInt32)
    case duplicateBox(header: Int)
    case removeBox(header: Int)

    static func random(for bytes: [UInt8], boxes: HEIFBoxes, using random: inout SeededGenerator) -> HEIFMutation {
        // Half the offsets fall in the meta box, where a byte means more than in the image data.
        func offset() -> Int {
            Bool.random(using: &random) && !boxes.meta.isEmpty
                ? Int.random(in: boxes.meta, using: &random) : Int.random(in: 0..<bytes.count, using: &random)
        }
        let header = boxes.headers.randomElement(using: &random) ?? 0
        let size = header + 4 <= bytes.count ? bytes[header..<(header + 4)].reduce(0) { $0 << 8 | UInt32($1) } : 0
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            return .truncate(length: offset())
        case 2, 3:
            let count = Int.random(in: 1...4, using: &random)
            return .flip((0..<count).map { _ in (offset(), UInt8.random(in: 1...255, using: &random)) })
        case 4, 5:
            let sizes: [UInt32] = [0, 1, 7, 8, 0xFFFF_FFFF, UInt32.random(in: 0...0xFFFF, using: &random)]
            let changed =
                Bool.random(using: &random)
                ? sizes.randomElement(using: &random)!
                : UInt32(max(0, Int(size) + Int.random(in: -9...9, using: &random)))
            return .boxSize(header: header, size: changed)
        case 6, 7:
            // A 32-bit field in the meta box: a width, an offset, a length, an item number.
            let values: [UInt32] = [
                0, 1, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32.random(in: 0...UInt32.max, using: &random),
            ]
            let start = boxes.meta.isEmpty ? 0 : Int.random(in: boxes.meta, using: &random)
            return .field(offset: start, value: values.randomElement(using: &random)!)
        case 8:
            return .duplicateBox(header: header)
        default:
            return .removeBox(header: header)
        }
    }

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        func boxRange(_ header: Int) -> Range<Int> {
            let size = bytes[header..<(header + 4)].reduce(0) { $0 << 8 | Int($1) }
            return header..<min(bytes.count, header + max(8, size))
        }
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 where offset + index < bytes.count {
                bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index))
            }
        }
        switch self {
        case .truncate(let length): bytes = Array(bytes.prefix(length))
        case .flip(let flips): for flip in flips where flip.offset < bytes.count { bytes[flip.offset] ^= flip.mask }
        case .boxSize(let header, let size): put(size, at: header)
        case .field(let offset, let value): put(value, at: offset)
        case .duplicateBox(let header):
            bytes.insert(contentsOf: bytes[boxRange(header)], at: boxRange(header).upperBound)
        case .removeBox(let header): bytes.removeSubrange(boxRange(header))
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "truncated to \(length) bytes"
        case .flip(let flips): "flipped " + flips.map { "\($0.offset)^\($0.mask)" }.joined(separator: ",")
        case .boxSize(let header, let size): "box at \(header) sized \(size)"
        case .field(let offset, let value): "\(value) written at \(offset)"
        case .duplicateBox(let header): "box at \(header) duplicated"
        case .removeBox(let header): "box at \(header) removed"
        }
    }
}
