internal import COpenJPEG

/// OpenJPEG's decoder, its stream over the bytes in memory and the image it reads, with exactly
/// one owner; what OpenJPEG reports is counted, never printed.
struct OpenJPEGDecoder: ~Copyable {
    let codec: UnsafeMutablePointer<opj_codec_t?>
    let stream: UnsafeMutablePointer<opj_stream_t?>
    private let source: UnsafeMutablePointer<copj_source>
    /// The image the header describes, and after `decode` its samples.
    let image: UnsafeMutablePointer<opj_image_t>

    /// Opens the bytes as a JP2 file or a bare codestream and reads the main header.
    ///
    /// - Throws: `.corruptJPEG2000` when OpenJPEG cannot read the header.
    init(_ bytes: UnsafeRawBufferPointer, isJP2: Bool, file: String) throws(ImagePrepError) {
        let source = UnsafeMutablePointer<copj_source>.allocate(capacity: 1)
        source.initialize(to: copj_source())
        source.pointee.bytes = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        source.pointee.size = UInt64(bytes.count)
        guard let codec = copj_decoder(isJP2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K, source) else {
            source.deallocate()
            throw .outOfMemory(file: file, byteCount: 0)
        }
        guard let stream = copj_stream(source) else {
            opj_destroy_codec(codec)
            source.deallocate()
            throw .outOfMemory(file: file, byteCount: 0)
        }
        var image: UnsafeMutablePointer<opj_image_t>?
        guard opj_read_header(stream, codec, &image) != 0, let image else {
            if let image { opj_image_destroy(image) }
            opj_stream_destroy(stream)
            opj_destroy_codec(codec)
            source.deallocate()
            throw .corruptJPEG2000(file: file, detail: "its header is damaged")
        }
        self.codec = codec
        self.stream = stream
        self.source = source
        self.image = image
    }

    deinit {
        opj_image_destroy(image)
        opj_stream_destroy(stream)
        opj_destroy_codec(codec)
        source.deallocate()
    }

    /// How many errors OpenJPEG has reported so far.
    var errorCount: Int { Int(source.pointee.errors) }

    /// Decodes the whole image at `reduction` (each step halves both sides).
    func decode(reduction: Int) -> Bool {
        guard opj_set_decoded_resolution_factor(codec, UInt32(reduction)) != 0 else { return false }
        return opj_decode(codec, stream, image) != 0 && opj_end_decompress(codec, stream) != 0
    }

    /// The most the decode can be reduced by: one less than the resolution levels.
    var maxReduction: Int { max(0, Int(copj_resolution_count(codec)) - 1) }
}
