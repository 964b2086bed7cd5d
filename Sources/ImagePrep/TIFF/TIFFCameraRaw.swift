extension TIFFStructure {
    /// What kind of camera raw the file is, in words ("a DNG camera raw file"), or nil for a TIFF
    /// photo. A DNG, a CR2 or a NEF is a TIFF too; this version does not prepare them, and says so
    /// rather than preparing the small preview or thumbnail that is often their first image.
    func cameraRawKind(ifd0: [Entry]) -> String? {
        if ifd0.first(tag: 50706) != nil { return "a DNG camera raw file" }  // DNGVersion
        if bytes.count >= 10, bytes[8] == 0x43, bytes[9] == 0x52 { return "a Canon CR2 camera raw file" }
        let photometric = ifd0.first(tag: 262).flatMap(integer)
        if photometric == 32803 || photometric == 34892 { return "a camera raw file (its pixels are sensor data)" }
        // NEF, ARW, PEF and others: IFD0 a reduced-resolution preview, the raw data in a SubIFD.
        if let subfileType = ifd0.first(tag: 254).flatMap(integer), subfileType & 1 == 1,
            ifd0.first(tag: 330) != nil
        {
            return "a camera raw file (its first image is a reduced preview)"
        }
        return nil
    }
}
