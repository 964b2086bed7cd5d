internal import CHeif

/// The upload of a single coded image that libheif decodes whole at more than 8 bits a sample,
/// or in samples that are not JPEG's YCbCr (an AVIF of 10 bits or in BT.709, an HEVC picture
/// the direct decode turns down: `directHEVCRowUpload`), made from libheif's planes at their own
/// depth, a row at a time.
///
/// Asked for 8-bit YCbCr, libheif 1.15 converts the whole picture to RGB at 16 bits a sample and
/// back, then to 8 bits, and the copy into our planes was a further one: a 50 MP 10-bit HEIC
/// peaked at 770 MB. Asked for nothing in particular it gives its RGB 4:4:4 planes (or, from
/// another build, the YCbCr ones, read here by their nclx matrix and range), and each row is
/// turned into 8-bit RGB here and pushed into the resamplers (`RowStreamUpload`), so that beside
/// libheif's picture only rows exist.
struct HEIFBandUpload {
    /// How the samples read as RGB: Kr and Kb of their matrix, and their range.
    struct Matrix {
        let red: Double
        let blue: Double
        let isFullRange: Bool

        /// The matrices libheif 1.15 converts by (ITU-T H.273's matrix_coefficients); nil for
        /// another (identity, YCgCo, constant luminance, or one derived from the primaries),
        /// which the whole-image path leaves to libheif.
        init?(_ nclx: NCLXColor?) {
            // A file without an nclx box reads as JPEG's full-range BT.601, as in `HEIFDecoder`.
            self.init(matrix: nclx?.matrix ?? 2, isFullRange: nclx?.isFullRange ?? true)
        }

        /// An H.273 `matrix_coefficients` code point and full-range flag.
        init?(matrix: Int, isFullRange: Bool) {
            switch matrix {
            case 1: (red, blue) = (0.2126, 0.0722)
            case 2, 5, 6: (red, blue) = (0.299, 0.114)
            case 4: (red, blue) = (0.30, 0.11)
            case 7: (red, blue) = (0.212, 0.087)
            case 9: (red, blue) = (0.2627, 0.0593)
            default: return nil
            }
            self.isFullRange = isFullRange
        }
    }

    /// Whether the primary goes this way: one coded image (no grid, which libheif composes
    /// through RGB, no alpha) in colour, of more than 8 bits or whose samples would otherwise go
    /// through libheif's whole-image conversion to RGB.
    static func covers(_ plan: HEIFContainer.DecodePlan, isCodedImage: Bool, nclx: NCLXColor?) -> Bool {
        guard isCodedImage, plan.codedImageCount == 1, let format = plan.codedFormat, format.chroma != .monochrome
        else { return false }
        return format.bitDepth > 8 || !(nclx?.isJPEGYCbCr ?? true)
    }

    /// Decodes the primary as libheif gives it unconverted (`undefined` colorspace and chroma,
    /// samples at their depth: libheif 1.15 hands a colour image over as RGB 4:4:4 planes, the
    /// cheapest of its forms) and converts it into `upload` row by row; nil when libheif gives
    /// planes of another kind (the whole-image path then decodes it as before).
    ///
    /// - Returns: libheif's decoding warnings (damage it decoded past).
    static func decode(
        _ handle: borrowing HEIFImageHandle, plan: HEIFContainer.DecodePlan, nclx: NCLXColor?,
        context: PreparationContext, uploadSize: PixelSize
    ) throws(ImagePrepError) -> (image: PlanarImage, warnings: [PhotoWarning])? {
        let expected = HEIFDecoder.decodedSize(of: handle, plan: plan)
        let decoded = try HEIFDecoder.decodeImage(
            handle, colorspace: heif_colorspace_undefined, chroma: heif_chroma_undefined,
            appliesTransforms: plan.orientation == nil, keepsBitDepth: true, file: context.file)
        let libheif = decoded.libheif
        let colorspace = libheif.heif_image_get_colorspace(decoded.pointer)
        let rows: RowConverter
        switch (colorspace, libheif.heif_image_get_chroma_format(decoded.pointer)) {
        case (heif_colorspace_RGB, heif_chroma_444):
            rows = .rgb
        case (heif_colorspace_YCbCr, heif_chroma_420):
            guard let matrix = Matrix(nclx) else { return nil }
            rows = .ycbcr(matrix, horizontal: 2, vertical: 2)
        case (heif_colorspace_YCbCr, heif_chroma_422):
            guard let matrix = Matrix(nclx) else { return nil }
            rows = .ycbcr(matrix, horizontal: 2, vertical: 1)
        case (heif_colorspace_YCbCr, heif_chroma_444):
            guard let matrix = Matrix(nclx) else { return nil }
            rows = .ycbcr(matrix, horizontal: 1, vertical: 1)
        default:
            return nil
        }
        let channels =
            colorspace == heif_colorspace_RGB
            ? [heif_channel_R, heif_channel_G, heif_channel_B] : [heif_channel_Y, heif_channel_Cb, heif_channel_Cr]
        let bits = Int(libheif.heif_image_get_bits_per_pixel_range(decoded.pointer, channels[0]))
        guard (8...16).contains(bits) else { return nil }
        let sampleBytes = bits > 8 ? 2 : 1
        var planes: [(pixels: UnsafePointer<UInt8>, stride: Int)] = []
        for (index, channel) in channels.enumerated() {
            let (horizontal, vertical) = index == 0 ? (1, 1) : rows.subsampling
            let width = (expected.width + horizontal - 1) / horizontal
            let height = (expected.height + vertical - 1) / vertical
            guard let plane = decoded.plane(channel),
                Int(libheif.heif_image_get_bits_per_pixel_range(decoded.pointer, channel)) == bits,
                decoded.size(of: channel).width >= width, decoded.size(of: channel).height >= height,
                plane.stride >= width * sampleBytes
            else { return nil }
            planes.append(plane)
        }
        let image = try upload(
            planes: planes, rows: rows, bits: bits, size: expected, context: context, uploadSize: uploadSize)
        return (image, decoded.warnings)
    }

    /// The upload of a `size` picture whose three planes (`rows` says of what, `bits` deep) are
    /// held by their decoder: converted to 8-bit RGB and pushed into the resamplers a row at a time.
    static func upload(
        planes: [(pixels: UnsafePointer<UInt8>, stride: Int)], rows: RowConverter, bits: Int, size: PixelSize,
        context: PreparationContext, uploadSize: PixelSize
    ) throws(ImagePrepError) -> PlanarImage {
        let upload = try RowStreamUpload(context: context, sourceSize: size, uploadSize: uploadSize, layout: .rgb)
        let converter = RowConverter.Arithmetic(rows, bits: bits, width: size.width)
        var row = [UInt8](repeating: 0, count: size.width * 3)
        row.withUnsafeMutableBufferPointer { row in
            for y in 0..<size.height where upload.needsRows {
                let chromaY = y / rows.subsampling.vertical
                converter.convert(
                    planes[0].pixels + y * planes[0].stride, planes[1].pixels + chromaY * planes[1].stride,
                    planes[2].pixels + chromaY * planes[2].stride, into: row.baseAddress!)
                upload.push(row.baseAddress!)
            }
        }
        upload.fillRemainingRows()
        return upload.finish()
    }

    /// What libheif's planes hold: RGB, or YCbCr of a matrix with its chroma subsampled.
    enum RowConverter {
        case rgb
        case ycbcr(Matrix, horizontal: Int, vertical: Int)

        var subsampling: (horizontal: Int, vertical: Int) {
            switch self {
            case .rgb: (1, 1)
            case .ycbcr(_, let horizontal, let vertical): (horizontal, vertical)
            }
        }

        /// One row of samples of any depth to 8-bit interleaved RGB, by libheif's arithmetic:
        /// the matrix and range of H.273, the nearest chroma sample.
        struct Arithmetic {
            let width: Int
            let isWide: Bool
            let horizontal: Int
            let isRGB: Bool
            /// The matrix's factors.
            let crToRed: Double
            let cbToGreen: Double
            let crToGreen: Double
            let cbToBlue: Double
            /// What takes a luma (or RGB) sample to 0...255: its black and its scale; a chroma
            /// sample's centre and scale.
            let black: Double
            let lumaScale: Double
            let centre: Double
            let chromaScale: Double

            init(_ layout: RowConverter, bits: Int, width: Int) {
                self.width = width
                isWide = bits > 8
                horizontal = layout.subsampling.horizontal
                let depthScale = Double(1 << (bits - 8))
                centre = Double(1 << (bits - 1))
                let full = 255 / Double((1 << bits) - 1)
                guard case .ycbcr(let matrix, _, _) = layout else {
                    isRGB = true
                    (crToRed, cbToGreen, crToGreen, cbToBlue) = (0, 0, 0, 0)
                    (black, lumaScale, chromaScale) = (0, full, full)
                    return
                }
                isRGB = false
                let (kr, kb) = (matrix.red, matrix.blue)
                let kg = 1 - kr - kb
                crToRed = 2 * (1 - kr)
                cbToBlue = 2 * (1 - kb)
                cbToGreen = 2 * kb * (1 - kb) / kg
                crToGreen = 2 * kr * (1 - kr) / kg
                if matrix.isFullRange {
                    (black, lumaScale, chromaScale) = (0, full, full)
                } else {
                    // Video range: 16-235 for luma and 16-240 for chroma at 8 bits, scaled above (H.273).
                    (black, lumaScale, chromaScale) = (
                        16 * depthScale, 255 / (219 * depthScale), 255 / (224 * depthScale)
                    )
                }
            }

            func convert(
                _ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, _ third: UnsafePointer<UInt8>,
                into row: UnsafeMutablePointer<UInt8>
            ) {
                @inline(__always) func sample(_ plane: UnsafePointer<UInt8>, _ x: Int) -> Double {
                    isWide
                        ? Double(UnsafeRawPointer(plane).loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self))
                        : Double(plane[x])
                }
                @inline(__always) func level(_ value: Double) -> UInt8 { UInt8(min(max(value + 0.5, 0), 255)) }
                if isRGB {
                    for x in 0..<width {
                        row[3 * x] = level(sample(first, x) * lumaScale)
                        row[3 * x + 1] = level(sample(second, x) * lumaScale)
                        row[3 * x + 2] = level(sample(third, x) * lumaScale)
                    }
                    return
                }
                for x in 0..<width {
                    let y = (sample(first, x) - black) * lumaScale
                    let blue = (sample(second, x / horizontal) - centre) * chromaScale
                    let red = (sample(third, x / horizontal) - centre) * chromaScale
                    row[3 * x] = level(y + crToRed * red)
                    row[3 * x + 1] = level(y - cbToGreen * blue - crToGreen * red)
                    row[3 * x + 2] = level(y + cbToBlue * blue)
                }
            }
        }
    }
}

extension HEIFContainer {
    /// Whether the primary image is one coded image (`hvc1`, `av01`), not a grid or a derived image.
    var primaryIsCodedImage: Bool {
        guard let primary, let type = items[primary]?.type else { return false }
        return type == .hvc1 || type == .av01
    }
}
