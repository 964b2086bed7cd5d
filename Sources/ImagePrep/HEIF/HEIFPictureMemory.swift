/// What the decoders of a primary that is one coded image (not a grid) hold at once, from what
/// the file declares: libde265 and dav1d decode a picture whole, and nothing outside them can
/// make them hold less. A grid is decoded a row of tiles at a time (`HEIFSource+HEVCDecode`), so
/// a 200 MP photo fits as a grid but not as one coded picture.
///
/// Such a photo is refused before anything is decoded (`.tooMuchMemory`), as a JPEG 2000 or a
/// JPEG XL that its decoder would hold whole over `DecodeMemoryBudget`.
enum HEIFPictureMemory {
    /// The bytes the decode of a `size` picture in `format` holds at its peak, measured on
    /// Debian 12's libde265 1.0.11, dav1d 1.0 and libheif 1.15:
    /// - libde265 holds its picture, the copy its SAO filter writes from (when the stream uses
    ///   SAO, as cameras' do), and about 1.5 bytes a pixel of per-block data: 4.5 bytes a pixel
    ///   for 8-bit 4:2:0 and 7.5 for 10-bit, decoded directly (a 50 MP 10-bit picture: 370 MB
    ///   for the whole of prep-photo, 236 MB without SAO);
    /// - through libheif (`throughLibheif`: what the direct decodes do not take, AV1 in gray),
    ///   libheif's copy of the picture and then its RGB 4:4:4 planes at the samples' depth, which
    ///   it makes once the decoder is freed (9.4 bytes a pixel for 10-bit 4:2:0 HEVC);
    /// - through libheif, dav1d holds its picture and, decoding on several threads, the whole
    ///   frame's coefficients with its own per-block data, and libheif's copy and RGB planes
    ///   follow before it is freed (17.5 bytes a pixel for 10-bit 4:2:2);
    /// - decoded directly (`HEIFSource+AV1Decode`: one frame in flight, no coefficients kept,
    ///   dav1d closed before the rows are read), dav1d's picture and at most 1 byte a pixel of
    ///   per-block data and rows. Measured with `/usr/bin/time -v prep-photo` on a 5472x3648 real
    ///   photo (avifenc and heif-enc, libaom): 120 MB for 10-bit 4:2:2 (picture 80 MB), 100 MB for
    ///   10-bit 4:2:0 (60), 66 MB for 8-bit 4:2:0 (30), 164 MB for 10-bit 4:4:4 (120): each
    ///   about 25 MB of process, libraries and upload buffers over the picture plus 0.75 to 0.95
    ///   bytes a pixel; 87 MB for the 12 MP 10-bit 4:2:2 `heic/ten-bit/avif-10-bit-4000x3000.avif`
    ///   (48).
    static func bytes(
        of size: PixelSize, format: HEIFContainer.CodedFormat, codec: HEIFContainer.Codec, throughLibheif: Bool
    ) -> Int {
        let pixels = Int.saturatingProduct(size.width, size.height)
        let sampleBytes = format.bitDepth > 8 ? 2 : 1
        // Samples a pixel, in halves: 4:2:0 has 1.5, 4:2:2 2, 4:4:4 3.
        let halves =
            switch format.chroma {
            case .monochrome: 2
            case .yuv420: 3
            case .yuv422: 4
            case .yuv444: 6
            }
        let picture = Int.saturatingProduct(pixels, halves, sampleBytes) / 2
        let rgb = Int.saturatingProduct(pixels, 3, sampleBytes)
        let blocks = Int.saturatingProduct(pixels, 15) / 10
        switch (codec, throughLibheif) {
        case (.hevc, false):
            return sum(picture, picture, blocks)
        case (.hevc, true):
            return max(sum(picture, picture, blocks), sum(picture, rgb))
        case (.av1, false):
            return sum(picture, pixels)
        case (.av1, true):
            return sum(picture, picture, rgb, Int.saturatingProduct(pixels, 35) / 10)
        }
    }

    private static func sum(_ terms: Int...) -> Int {
        terms.reduce(0) { total, term in
            let (result, overflow) = total.addingReportingOverflow(term)
            return overflow ? .max : result
        }
    }
}
