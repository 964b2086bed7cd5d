extension HEIFSource {
    /// What libheif's decoders decoded past (its decoding warnings: a damaged AV1 or HEVC stream
    /// whose missing part the decoder filled in) is refused as damaged, or with
    /// `acceptsIncompleteData` prepared with a warning that names it: the rule of a damaged JPEG,
    /// and of a tile libde265 decodes directly.
    func acceptLibheifDamage(_ found: [PhotoWarning]) throws(ImagePrepError) {
        guard let first = found.first else { return }
        guard configuration.acceptsIncompleteData else {
            throw .incompleteImageData(
                file: file, detail: String(first.message.dropLast(first.message.hasSuffix(".") ? 1 : 0)))
        }
        warnings += found
    }
}
