internal import CHeif

/// A picture dav1d decoded from one coded AV1 image, with one owner, decoded as libheif 1.15's
/// dav1d plugin decodes it (`Sources/CHeif/Dav1d.c`: its settings, the `av1C` box's configOBUs
/// then the item's data sent whole, the first picture dav1d gives), so that it is the picture
/// libheif would copy; only one frame in flight and the number of threads differ, which change
/// no sample. dav1d's decoder is closed before the picture is read: beside the picture, none of
/// dav1d's per-frame data is held.
struct Dav1dPicture: ~Copyable {
    private let decoded: OpaquePointer
    /// Its planes, size, depth, chroma layout and the colour its sequence header says.
    let description: cdav1d_picture

    /// Whether dav1d can be loaded: false when this build has no dav1d header, or the library
    /// is missing, and libheif then decodes every AVIF.
    static var isAvailable: Bool {
        var reason: UnsafePointer<CChar>?
        return cdav1d_library(&reason)
    }

    /// Decodes `pieces`, read as one run of bytes, on `threads` threads; nil when dav1d refuses
    /// them or gives no picture, or more than one (libheif, given the same bytes, decodes or
    /// refuses the image in its own words).
    init?(decoding pieces: [UnsafeRawBufferPointer], threads: Int) {
        var description = cdav1d_picture()
        let starts = pieces.map { $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)! }
        let sizes = pieces.map(\.count)
        guard let decoded = cdav1d_decode(starts, sizes, pieces.count, Int32(threads), &description) else { return nil }
        self.decoded = decoded
        self.description = description
    }

    deinit { cdav1d_release(decoded) }

    /// Plane 0 is Y, 1 Cb and 2 Cr, each with the distance between its rows in bytes.
    func plane(_ index: Int) -> (pixels: UnsafePointer<UInt8>, stride: Int)? {
        let planes = description.planes
        let pixels = index == 0 ? planes.0 : index == 1 ? planes.1 : planes.2
        let stride = index == 0 ? description.strides.0 : description.strides.1
        guard let pixels, stride > 0 else { return nil }
        return (pixels, stride)
    }
}
