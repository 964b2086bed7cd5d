/// A box, item, property or brand type of an ISO base media file (HEIC, AVIF): four ASCII
/// letters, kept as the big-endian number they are in the file. The types the package reads are
/// named here, once.
struct FourCC: Hashable, Sendable, CustomStringConvertible {
    let value: UInt32

    init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount == 4)
        value = text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    init(value: UInt32) { self.value = value }

    var description: String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }, as: UTF8.self)
    }
}

// MARK: Boxes (ISO/IEC 14496-12, 23008-12)

extension FourCC {
    static let ftyp = FourCC("ftyp")
    static let meta = FourCC("meta")
    static let pitm = FourCC("pitm")
    static let iinf = FourCC("iinf")
    static let infe = FourCC("infe")
    static let iloc = FourCC("iloc")
    static let idat = FourCC("idat")
    static let iprp = FourCC("iprp")
    static let ipco = FourCC("ipco")
    static let ipma = FourCC("ipma")
    static let iref = FourCC("iref")
}

// MARK: Item types

extension FourCC {
    static let hvc1 = FourCC("hvc1")
    static let av01 = FourCC("av01")
    static let grid = FourCC("grid")
    static let iovl = FourCC("iovl")
    static let iden = FourCC("iden")
    static let tmap = FourCC("tmap")
    static let exif = FourCC("Exif")
    static let mime = FourCC("mime")
    /// Image codings libheif 1.15 does not decode.
    static let vvc1 = FourCC("vvc1")
    static let avc1 = FourCC("avc1")
    static let evc1 = FourCC("evc1")
    static let j2k1 = FourCC("j2k1")
    static let jpeg = FourCC("jpeg")
    static let unci = FourCC("unci")
    static let mski = FourCC("mski")
    static let hvt1 = FourCC("hvt1")
}

// MARK: Item references

extension FourCC {
    static let dimg = FourCC("dimg")
    static let auxl = FourCC("auxl")
    static let thmb = FourCC("thmb")
    static let cdsc = FourCC("cdsc")
}

// MARK: Item properties

extension FourCC {
    static let ispe = FourCC("ispe")
    static let irot = FourCC("irot")
    static let imir = FourCC("imir")
    static let clap = FourCC("clap")
    static let colr = FourCC("colr")
    static let pixi = FourCC("pixi")
    static let auxC = FourCC("auxC")
    static let hvcC = FourCC("hvcC")
    static let av1C = FourCC("av1C")
}

// MARK: Brands of a HEIF still image or image sequence (ISO/IEC 23008-12, AV1's ISO binding)

extension FourCC {
    static let heic = FourCC("heic")
    static let heix = FourCC("heix")
    static let heim = FourCC("heim")
    static let heis = FourCC("heis")
    static let hevc = FourCC("hevc")
    static let hevx = FourCC("hevx")
    static let hevm = FourCC("hevm")
    static let hevs = FourCC("hevs")
    static let mif1 = FourCC("mif1")
    static let mif2 = FourCC("mif2")
    static let msf1 = FourCC("msf1")
    static let avif = FourCC("avif")
    static let avis = FourCC("avis")
}
