import Foundation
import Testing

@testable import ImagePrep

/// Real fixtures damaged in thousands of seeded ways: every result must be a thrown
/// `ImagePrepError` that names the file, or a photo whose three copies are valid JPEGs. A crash
/// or a hang fails the run.
@Suite("Mutated JPEGs never crash the pipeline")
struct FuzzTests {
    /// Small real files that between them take every decode path: EXIF in both byte orders with
    /// IFD1 thumbnails, ICC profiles (RGB, gray, Display P3), XMP and COM, CMYK/YCCK, gray,
    /// progressive, restart markers and odd-sized 4:2:2.
    static let seeds = [
        "corpus/exif-little-endian-canon-40d.jpg", "corpus/offset-minus0400-iphone14promax-p3-mpf.jpg",
        "corpus/comment-gimp-nikon-d70-xmp-icc.jpg", "corpus/ycck-adobe-pillow.jpg",
        "corpus/grayscale-gray-gamma-icc.jpg", "corpus/truncated-progressive.jpg", "decode/progressive-444-224x150.jpg",
        "decode/restart-every-row-224x150.jpg", "decode/ycc422-odd-223x149.jpg",
    ]
    static let iterationsPerSeed = 400

    /// Small copies keep each run near 3 ms in a debug build; a low pixel limit keeps a mutated frame
    /// header from asking for a huge (but allowed) decode.
    static func configuration(acceptingIncompleteData: Bool) -> PhotoPreparer.Configuration {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 32
        configuration.displayEdge = 32
        configuration.thumbnailEdge = 16
        configuration.maxPixels = 1 << 22
        configuration.acceptsIncompleteData = acceptingIncompleteData
        return configuration
    }

    @Test(
        "truncations, flipped bytes, bogus segment lengths and duplicated or removed markers give an error or valid JPEGs",
        arguments: seeds)
    func mutations(path: String) throws {
        let original = [UInt8](try Fixtures.data(path))
        let markers = Self.markers(in: original)
        var random = SeededGenerator(seed: path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        let workspace = PreparationWorkspace()
        var outcomes = (errors: 0, photos: 0)
        for iteration in 0..<Self.iterationsPerSeed {
            let mutation = Mutation.random(for: original, markers: markers, using: &random)
            let mutated = Data(mutation.apply(to: original))
            let label = "\(name) #\(iteration): \(mutation)"
            let preparer = PhotoPreparer(configuration: Self.configuration(acceptingIncompleteData: iteration % 2 == 1))
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
        // The mutations reach both outcomes, so neither half of the check is idle.
        #expect(
            outcomes.errors > Self.iterationsPerSeed / 10 && outcomes.photos > Self.iterationsPerSeed / 10,
            "\(outcomes)")
    }

    /// Where each marker segment starts (its FF), up to EOI: the header's, and the tables and
    /// scan headers between the scans of a progressive file.
    static func markers(in bytes: [UInt8]) -> [Int] {
        var found: [Int] = []
        var index = 2
        while index + 1 < bytes.count {
            let marker = bytes[index + 1]
            if bytes[index] == 0xFF, marker != 0, marker != 0xFF, !(0xD0...0xD7).contains(marker) {
                if marker == JPEGSegment.endOfImage { break }
                found.append(index)
            }
            index += 1
        }
        return found
    }

    /// One way to damage a file, chosen by the seeded generator and described in failures.
    enum Mutation: CustomStringConvertible {
        case truncate(length: Int)
        case flip([(offset: Int, mask: UInt8)])
        case segmentLength(marker: Int, length: Int)
        case duplicateSegment(marker: Int)
        case removeSegment(marker: Int)
        case insertMarker(offset: Int, marker: UInt8)

        static let insertedMarkers: [UInt8] = [0xD8, 0xD9, 0xDA, 0xC0, 0xC2, 0xC4, 0xDB, 0xDD, 0xE1, 0xE2, 0xFE, 0xD3]

        static func random(for bytes: [UInt8], markers: [Int], using random: inout SeededGenerator) -> Mutation {
            // Half the offsets fall in the headers, where a byte means more than in the scan.
            let headerEnd = min(bytes.count, (markers.last ?? 2) + 16)
            func offset() -> Int {
                Bool.random(using: &random)
                    ? Int.random(in: 0..<headerEnd, using: &random) : Int.random(in: 0..<bytes.count, using: &random)
            }
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                return .truncate(length: offset())
            case 2, 3, 4:
                let count = Int.random(in: 1...4, using: &random)
                return .flip((0..<count).map { _ in (offset(), UInt8.random(in: 1...255, using: &random)) })
            case 5, 6:
                let marker = markers.randomElement(using: &random) ?? 2
                let lengths = [0, 1, 2, 0xFFFF, Int.random(in: 0...0xFFFF, using: &random)]
                let current = marker + 3 < bytes.count ? Int(bytes[marker + 2]) << 8 | Int(bytes[marker + 3]) : 0
                let length =
                    Bool.random(using: &random)
                    ? lengths.randomElement(using: &random)! : max(0, current + Int.random(in: -2...2, using: &random))
                return .segmentLength(marker: marker, length: length)
            case 7:
                return .duplicateSegment(marker: markers.randomElement(using: &random) ?? 2)
            case 8:
                return .removeSegment(marker: markers.randomElement(using: &random) ?? 2)
            default:
                return .insertMarker(offset: offset(), marker: insertedMarkers.randomElement(using: &random)!)
            }
        }

        /// The bytes of the segment that starts at `marker`: up to the next marker for a scan
        /// (its header and entropy-coded data), else its declared length, cut to the file.
        static func segment(at marker: Int, in bytes: [UInt8]) -> Range<Int> {
            guard marker + 3 < bytes.count else { return marker..<bytes.count }
            let length = Int(bytes[marker + 2]) << 8 | Int(bytes[marker + 3])
            var end = min(bytes.count, marker + 2 + length)
            if bytes[marker + 1] == JPEGSegment.startOfScan {
                while end + 1 < bytes.count,
                    !(bytes[end] == 0xFF && bytes[end + 1] != 0 && !(0xD0...0xD7).contains(bytes[end + 1]))
                {
                    end += 1
                }
            }
            return marker..<max(end, marker)
        }

        func apply(to original: [UInt8]) -> [UInt8] {
            var bytes = original
            switch self {
            case .truncate(let length):
                bytes.removeSubrange(length...)
            case .flip(let flips):
                for flip in flips { bytes[flip.offset] ^= flip.mask }
            case .segmentLength(let marker, let length):
                guard marker + 3 < bytes.count else { break }
                bytes[marker + 2] = UInt8(length >> 8)
                bytes[marker + 3] = UInt8(length & 0xFF)
            case .duplicateSegment(let marker):
                let range = Self.segment(at: marker, in: bytes)
                bytes.insert(contentsOf: bytes[range], at: range.upperBound)
            case .removeSegment(let marker):
                bytes.removeSubrange(Self.segment(at: marker, in: bytes))
            case .insertMarker(let offset, let marker):
                bytes.insert(contentsOf: [0xFF, marker, 0x00, 0x04, 0x00, 0x00], at: offset)
            }
            return bytes
        }

        var description: String {
            switch self {
            case .truncate(let length): "cut to \(length) bytes"
            case .flip(let flips):
                "bytes flipped " + flips.map { "at \($0.offset) by \($0.mask)" }.joined(separator: ", ")
            case .segmentLength(let marker, let length): "length of the segment at \(marker) set to \(length)"
            case .duplicateSegment(let marker): "segment at \(marker) repeated"
            case .removeSegment(let marker): "segment at \(marker) removed"
            case .insertMarker(let offset, let marker):
                "FF \(String(marker, radix: 16)) 00 04 00 00 inserted at \(offset)"
            }
        }
    }
}
