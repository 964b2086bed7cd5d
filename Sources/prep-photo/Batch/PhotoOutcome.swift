import ImagePrep

/// What became of one input.
enum PhotoOutcome: Sendable {
    /// A photo's copies and what it says about itself: made now, or kept and read again.
    struct Prepared: Sendable {
        let upload: WrittenCopy
        let display: WrittenCopy?
        let thumbnail: WrittenCopy?
        /// The size and length of the HDR gain map that the upload carries; nil when none.
        let uploadGainMap: (size: PixelSize, byteCount: Int)?
        /// Nil for a kept photo that could not be read again.
        let metadata: PhotoMetadata?
        let warnings: [PhotoWarning]
        /// A camera raw's: its embedded preview or its sensor data; nil for other formats and
        /// for a kept photo, which is not decoded again.
        var cameraRawPixels: CameraRawPixels? = nil
    }

    case prepared(Prepared)
    /// `--skip-existing`: all its copies are there, newer than it; what they and the photo say,
    /// read again without a decode.
    case alreadyPrepared(Prepared)
    case skipped(LeftOut)
    case failed(code: String, message: String)
    /// Not reached: the run was stopped by `signal` before it started this photo.
    case notStarted(signal: Int32)
    /// In flight when the run was stopped at once by `signal`: none of its copies was placed.
    case interrupted(signal: Int32)
}
