extension PhotoPreparer.Configuration {
    /// Checks every setting against what it allows, so that a bad one is an error the caller
    /// handles instead of a crash deep in the pipeline.
    ///
    /// - Throws: `ImagePrepError.invalidSetting` naming the first setting out of range.
    func validate() throws(ImagePrepError) {
        func refuse(_ setting: String, _ value: some CustomStringConvertible, _ allowed: String) -> ImagePrepError {
            .invalidSetting(setting: setting, value: String(describing: value), allowed: allowed)
        }
        guard maxEdge >= 1 else { throw refuse("maxEdge", maxEdge, "at least 1") }
        if let displayEdge, displayEdge < 1 { throw refuse("displayEdge", displayEdge, "at least 1, or nil for none") }
        if let thumbnailEdge, thumbnailEdge < 1 {
            throw refuse("thumbnailEdge", thumbnailEdge, "at least 1, or nil for none")
        }
        guard (1...100).contains(quality) else { throw refuse("quality", quality, "1 to 100") }
        guard maxPixels >= 1 else { throw refuse("maxPixels", maxPixels, "at least 1") }
        guard dctScaleTolerance >= 0, dctScaleTolerance < 1 else {
            throw refuse("dctScaleTolerance", dctScaleTolerance, "at least 0 and below 1")
        }
    }
}
