#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The photo's embedded ICC profile: put together from a JPEG's APP2 chunks, or a HEIF file's.
struct ICCProfile: Hashable, Sendable {
    let bytes: [UInt8]

    /// Reassembles the profile from `ICC_PROFILE` APP2 chunks, ordered by their sequence numbers.
    ///
    /// - Returns: no profile when there are no chunks; a warning instead of a profile when the
    ///   chunks do not add up (missing, repeated or out of range), since a partial profile is garbage.
    static func assemble(from bytes: UnsafeRawBufferPointer, layout: JPEGLayout) -> (ICCProfile?, PhotoWarning?) {
        let chunks = layout.iccSegments(in: bytes)
        guard !chunks.isEmpty else { return (nil, nil) }
        let header = JPEGLayout.iccSignature.count
        var parts: [Int: Range<Int>] = [:]
        var declaredCount = -1
        for chunk in chunks {
            guard chunk.payload.count > header + 2 else { return (nil, inconsistent) }
            let sequence = Int(bytes[chunk.payload.lowerBound + header])
            let count = Int(bytes[chunk.payload.lowerBound + header + 1])
            guard sequence >= 1, sequence <= count, declaredCount == -1 || declaredCount == count,
                parts[sequence] == nil
            else { return (nil, inconsistent) }
            declaredCount = count
            parts[sequence] = (chunk.payload.lowerBound + header + 2)..<chunk.payload.upperBound
        }
        guard parts.count == declaredCount else { return (nil, inconsistent) }
        var profile: [UInt8] = []
        for sequence in 1...declaredCount { profile.append(contentsOf: bytes[parts[sequence]!]) }
        return (ICCProfile(bytes: profile), nil)
    }

    private static let inconsistent = PhotoWarning(
        .colorProfile,
        "the ICC profile's APP2 chunks are missing or out of order; the copies keep the original colour numbers.")
}

extension ICCProfile {
    /// The most profile bytes one APP2 segment holds: 65533 less the signature and two counters.
    static let bytesPerSegment = 0xFFFF - 2 - JPEGLayout.iccSignature.count - 2

    /// The profile as the APP2 `ICC_PROFILE` segments a JPEG carries it in (ICC.1, annex B),
    /// numbered from 1; nil when it needs more than the 255 segments a count can give (16 MB).
    var jpegSegments: [Data]? {
        let count = (bytes.count + Self.bytesPerSegment - 1) / Self.bytesPerSegment
        guard (1...255).contains(count) else { return nil }
        return (0..<count).map { index in
            let chunk = bytes[(index * Self.bytesPerSegment)..<min(bytes.count, (index + 1) * Self.bytesPerSegment)]
            let length = 2 + JPEGLayout.iccSignature.count + 2 + chunk.count
            var segment = Data([0xFF, JPEGSegment.app2, UInt8(length >> 8), UInt8(length & 0xFF)])
            segment.append(contentsOf: JPEGLayout.iccSignature)
            segment.append(contentsOf: [UInt8(index + 1), UInt8(count)])
            segment.append(contentsOf: chunk)
            return segment
        }
    }

    /// The segments an upload carries the profile in, or none and a warning that says so.
    var uploadSegments: (segments: [Data], warning: PhotoWarning?) {
        guard let segments = jpegSegments else {
            return (
                [],
                PhotoWarning(.colorProfile, "the ICC profile is too large for a JPEG to carry, so the upload has none.")
            )
        }
        return (segments, nil)
    }
}
