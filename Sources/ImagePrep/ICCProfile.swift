/// The photo's embedded ICC profile, put together from its APP2 chunks.
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
        "The ICC profile's APP2 chunks are missing or out of order; the copies keep the original colour numbers")
}
