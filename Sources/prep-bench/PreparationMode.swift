import ImagePrep

/// The two ways ImagePrep can be asked to make the upload copy.
enum PreparationMode: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable {
    /// The default: always resample to exactly the asked size.
    case exact
    /// Speed mode: a DCT scale landing at most 3 % below the size is kept and the resample
    /// skipped (2016 px for 2048 from a 4032 px photo); what `prep-photo --fast` sets.
    case fast

    /// The configuration of this mode.
    ///
    /// - Parameter splitsWork: whether one photo's copies run on two threads, as `prep-photo`
    ///   does when it has fewer photos than cores (one photo while someone waits), and not when
    ///   every core already has a photo of its own.
    func configuration(splitsWork: Bool) -> PhotoPreparer.Configuration {
        var configuration = PhotoPreparer.Configuration()
        if self == .fast { configuration.dctScaleTolerance = 0.03 }
        configuration.splitsWorkAcrossCores = splitsWork
        return configuration
    }

    /// A preparer with this mode's configuration, whose settings are always in range (and which
    /// `prepare` checks again).
    func preparer(splitsWork: Bool) -> PhotoPreparer {
        var preparer = PhotoPreparer()
        preparer.configuration = configuration(splitsWork: splitsWork)
        return preparer
    }

    /// The row label of ImagePrep run inside the benchmark's own process.
    var inProcessName: String { self == .fast ? "ImagePrep in-process --fast" : "ImagePrep in-process" }
}
