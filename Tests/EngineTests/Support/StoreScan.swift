import Foundation
import Testing

@testable import ImagePrep

/// A scan of every byte of every file in a store's folder (database, `-wal`, `-shm`, media, the
/// lock, anything else there) for what a capture must never leave in plaintext on disk.
enum StoreScan {
    /// What must not appear: each with a name for the failure message.
    struct Secret {
        let name: String
        let bytes: Data
    }

    /// The secrets of captures made of these photos (and notes): the notes; each photo's latitude
    /// and longitude as decimal text, as the payload writes them; the raw EXIF GPS rationals
    /// (latitude and longitude, 24 bytes each) the upload copy carries; `Exif\0\0`; the JPEG start
    /// of each upload copy (`FF D8 FF` and its first marker, and its first 16 bytes).
    static func secrets(of photos: [URL], notes: [String] = []) throws -> [Secret] {
        var secrets = notes.map { Secret(name: "the note", bytes: Data($0.utf8)) }
        secrets.append(Secret(name: "Exif\\0\\0", bytes: Data("Exif\0\0".utf8)))
        for photo in photos {
            let prepared = try Fixtures.prepared(photo)
            let upload = prepared.upload.data
            secrets.append(Secret(name: "a JPEG start marker", bytes: upload.prefix(4)))
            secrets.append(Secret(name: "the upload copy's first bytes", bytes: upload.prefix(16)))
            if let place = prepared.metadata.location {
                for value in [place.latitude, place.longitude] {
                    secrets.append(Secret(name: "a coordinate as text", bytes: Data("\(value)".utf8)))
                    secrets.append(
                        Secret(name: "a coordinate to 4 places", bytes: Data(String(format: "%.4f", abs(value)).utf8)))
                }
            }
            secrets += gpsRationals(in: upload).map { Secret(name: "raw EXIF GPS rationals", bytes: $0) }
        }
        return secrets
    }

    /// Which secrets of these photos appear in which file under `folder`: empty when none does.
    static func plaintextFound(under folder: URL, of photos: [URL], notes: [String] = []) throws -> [String] {
        let secrets = try secrets(of: photos, notes: notes)
        var found: [String] = []
        for (name, bytes) in try everyByte(under: folder) {
            for secret in secrets where bytes.range(of: secret.bytes) != nil {
                found.append("\(name) holds \(secret.name)")
            }
        }
        return Array(Set(found)).sorted()
    }

    /// Every regular file under `folder`, with its bytes.
    static func everyByte(under folder: URL) throws -> [(name: String, bytes: Data)] {
        let enumerator = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        return try enumerator.compactMap { item in
            let url = try #require(item as? URL)
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { return nil }
            return (url.lastPathComponent, try Data(contentsOf: url))
        }
    }

    /// The bytes of the GPSLatitude and GPSLongitude values (three rationals each) of the EXIF in `jpeg`.
    static func gpsRationals(in jpeg: Data) -> [Data] {
        guard let start = jpeg.range(of: Data("Exif\0\0".utf8))?.upperBound else { return [] }
        let tiff = Data(jpeg[start...])
        return tiff.withUnsafeBytes { bytes -> [Data] in
            guard let block = TIFFBlock(bytes),
                let gpsPointer = block.entries(ofIFDAt: block.ifd0Offset)?.first(where: { $0.tag == 0x8825 }),
                let gpsOffset = block.integer(gpsPointer),
                let entries = block.entries(ofIFDAt: Int(gpsOffset))
            else { return [] }
            return entries.filter { [0x0002, 0x0004].contains($0.tag) && $0.type == 5 && $0.count == 3 }.compactMap {
                entry in
                guard let offset = block.read32(at: entry.valueField).map(Int.init), offset + 24 <= bytes.count else {
                    return nil
                }
                return Data(bytes[offset..<(offset + 24)])
            }
        }
    }
}
