internal import CJPEG

/// A second look at a photo that TurboJPEG decoded with a complaint: libjpeg's own API decodes it
/// once more at 1/8 scale, the pixels thrown away, and tells what TurboJPEG 2.x cannot, down to
/// where a file cut short ends.
///
/// TurboJPEG keeps one message per decode. libjpeg shows only the first warning of a decode, so a
/// harmless one (stray bytes between two segments) hides a later one that lost pixels (the file
/// ends early); and after a warning TurboJPEG 2.1 labels a fatal error a warning too. Here every
/// warning comes by its code, and a fatal error as the decode stopping. It costs an entropy
/// decode of the file, only for photos that made libjpeg complain.
struct DamageSurvey {
    /// What libjpeg warned of, in order, each kind once.
    let warnings: [LibjpegMessage]
    /// What stopped the decode before its last row; nil when it reached it.
    let stop: LibjpegMessage?

    /// The same limit as TurboJPEG's `TJFLAG_LIMITSCANS`.
    static let scanLimit: Int32 = 500

    init(_ bytes: UnsafeRawBufferPointer) {
        var survey = cjpeg_survey()
        cjpeg_survey_decode(
            bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), Self.scanLimit, &survey)
        let kept = min(Int(survey.warningCount), Int(CJPEG_KEPT_WARNINGS))
        let messages = withUnsafeBytes(of: survey.warnings) { raw in
            raw.bindMemory(to: cjpeg_message.self).prefix(kept).map { message in
                LibjpegMessage(code: message.code, parameters: message.parameters)
            }
        }
        var unique: [LibjpegMessage] = []
        for message in messages where !unique.contains(message) { unique.append(message) }
        if survey.endScan > 0, let end = unique.firstIndex(of: LibjpegMessage(code: Int32(JWRN_JPEG_EOF.rawValue))) {
            unique[end] = .fileEnds(
                inScan: Int(survey.endScan), inRows: Int(survey.endRow)..<Int(survey.endRow + survey.endBandHeight),
                of: Int(survey.imageHeight),
                isProgressive: survey.isProgressive != 0)
        }
        warnings = unique
        if survey.exceededScanLimit != 0 {
            stop = .scanLimit
        } else if survey.fatal.code >= 0 {
            stop = LibjpegMessage(code: survey.fatal.code, parameters: survey.fatal.parameters)
        } else {
            stop = nil
        }
    }
}
