internal import CLCMS2
internal import CPixelKernels
internal import PlatformLayer

/// Relative colorimetric conversion from a matrix-and-curves RGB profile to sRGB: linearise each
/// channel through the profile's tone curves, apply one 3x3 matrix (the profile's colorants,
/// then sRGB's inverted, both in the D50 connection space), clip to the sRGB gamut and encode
/// with sRGB's curve. This is what lcms2 computes for such a pair.
final class MatrixShaperTransform: Sendable {
    /// The matrix folded into the curves, three 21-bit fields an entry (`pk_fold_matrix_shaper`).
    private let products: [UInt64]
    /// Encoded bytes for the fields' steps, clipped.
    private let table: [UInt8]
    /// Steps of the linear range 0...1 the table encodes: where sRGB's curve is steepest (near
    /// black, 12.92), a step is 0.8 of a byte's level.
    private static let encodeSteps = 4096

    init?(from profile: borrowing Profile, toSRGB sRGB: borrowing Profile) {
        guard cmsIsMatrixShaper(profile.handle) != 0,
            let source = Self.colorants(profile), let target = Self.colorants(sRGB),
            let targetInverse = Self.inverse(target)
        else { return nil }
        var linearize = [Float](repeating: 0, count: 768)
        for (channel, tag) in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].enumerated() {
            guard let curve = cmsReadTag(profile.handle, tag) else { return nil }
            for value in 0..<256 {
                linearize[channel * 256 + value] = cmsEvalToneCurveFloat(OpaquePointer(curve), Float(value) / 255)
            }
        }
        let matrix = Self.multiply(targetInverse, source).flatMap { $0.map(Float.init) }
        let encode = (0..<Self.encodeSteps).map { step in
            let linear = Double(step) / Double(Self.encodeSteps - 1)
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
        var products = [UInt64](repeating: 0, count: 768)
        var table = [UInt8](repeating: 0, count: Int(PK_FOLD_TABLE_SIZE))
        // A matrix no real profile has (a hostile file's colorants) takes lcms2's own path.
        guard pk_fold_matrix_shaper(matrix, linearize, encode, Int32(Self.encodeSteps), &products, &table) != 0 else {
            return nil
        }
        self.products = products
        self.table = table
    }

    /// Converts `count` interleaved RGB pixels in place: table lookups around a 3x3 matrix, in C
    /// (`matrixShaperRGB`).
    func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int, kernels: PixelKernels = .best) {
        withTables { products, table in kernels.table.pointee.matrixShaperRGB(pixels, count, products, table) }
    }

    /// Converts 4:2:0 planes in place, `rows` image rows of `width` from row `top` (even): to
    /// RGB as libjpeg-turbo decodes them (chroma replicated), through the transform, and back as
    /// its encoder converts and downsamples, in one pass with no RGB buffer.
    func apply(
        luma: PixelPlane, cb: PixelPlane, cr: PixelPlane, width: Int, rows: Int, top: Int = 0,
        kernels: PixelKernels = .best
    ) {
        withTables { products, table in
            kernels.table.pointee.convertColor(
                luma.row(top), luma.width, cb.row(top / 2), cr.row(top / 2), cb.width, width, rows, products, table)
        }
    }

    /// Lends the folded tables to a kernel.
    private func withTables(_ body: (UnsafePointer<UInt64>, UnsafePointer<UInt8>) -> Void) {
        products.withUnsafeBufferPointer { products in
            table.withUnsafeBufferPointer { table in body(products.baseAddress!, table.baseAddress!) }
        }
    }

    private static func colorants(_ profile: borrowing Profile) -> [[Double]]? {
        var columns: [cmsCIEXYZ] = []
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let xyz = cmsReadTag(profile.handle, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee else {
                return nil
            }
            columns.append(xyz)
        }
        return [
            [columns[0].X, columns[1].X, columns[2].X],
            [columns[0].Y, columns[1].Y, columns[2].Y],
            [columns[0].Z, columns[1].Z, columns[2].Z],
        ]
    }

    private static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { row in (0..<3).map { column in (0..<3).reduce(0) { $0 + a[row][$1] * b[$1][column] } } }
    }

    private static func inverse(_ m: [[Double]]) -> [[Double]]? {
        let determinant =
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        guard abs(determinant) > 1e-12 else { return nil }
        let cofactors: [[Double]] = [
            [
                m[1][1] * m[2][2] - m[1][2] * m[2][1], m[0][2] * m[2][1] - m[0][1] * m[2][2],
                m[0][1] * m[1][2] - m[0][2] * m[1][1],
            ],
            [
                m[1][2] * m[2][0] - m[1][0] * m[2][2], m[0][0] * m[2][2] - m[0][2] * m[2][0],
                m[0][2] * m[1][0] - m[0][0] * m[1][2],
            ],
            [
                m[1][0] * m[2][1] - m[1][1] * m[2][0], m[0][1] * m[2][0] - m[0][0] * m[2][1],
                m[0][0] * m[1][1] - m[0][1] * m[1][0],
            ],
        ]
        return cofactors.map { $0.map { $0 / determinant } }
    }
}
