import ImagePrep

/// The two ways ImagePrep can be asked to make the upload copy.
enum PreparationMode: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable {
    /// The default: always resample to exactly the asked size.
    case exact
    /// Speed mode: a DCT scale landing at most 3 % below the size is kept and the resample
    /// skipped (2016 px for 2048 from a 4032 px photo); what `prep-photo --fast` sets.
    case fast

    var configuration: PhotoPreparer.Configuration {
        var configuration = PhotoPreparer.Configuration()
        if self == .fast { configuration.dctScaleTolerance = 0.03 }
        return configuration
    }

    /// The row label of ImagePrep run inside the benchmark's own process.
    var inProcessName: String { self == .fast ? "ImagePrep in-process --fast" : "ImagePrep in-process" }
}
