#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A BMP file (1, 4, 8, 16, 24 and 32 bits a pixel; RLE4, RLE8, bit fields with alpha; bottom-up
/// or top-down), read by ImagePrep itself: no Debian library reads BMP a row at a time from
/// memory. Rows go to the upload top to bottom (`RowStreamUpload`), each read at its own offset
/// in the bytes, so a bottom-up file is never held whole; RLE goes a band at a time (`BMPRunLengths`).
struct BMPSource: PhotoSource {
    let context: PreparationContext

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool { BMPHeader.hasSignature(bytes) }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        let start = clock.now
        let header = try BMPHeader(bytes, file: file)
        try context.checkPixelLimit(header.size)
        if let problem = RowStreamUpload.widthProblem(header.size) {
            throw .unsupportedBMP(file: file, reason: problem)
        }
        let uploadSize = header.size.fitting(longEdge: configuration.maxEdge)
        let upload = try RowStreamUpload(
            context: context, sourceSize: header.size, uploadSize: uploadSize, layout: header.hasAlpha ? .rgba : .rgb)
        let width = header.size.width
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4)
        defer { row.deallocate() }
        let pixels = UnsafeRawBufferPointer(rebasing: bytes[header.pixelOffset...])
        var isComplete = true
        if header.compression == .rle4 || header.compression == .rle8 {
            let runs = BMPRunLengths(stream: pixels, size: header.size, isFourBit: header.compression == .rle4)
            let indexes = UnsafeMutablePointer<UInt8>.allocate(capacity: runs.bandHeight * width)
            defer { indexes.deallocate() }
            var band = runs.checkpoints.count - 1
            while band >= 0 && upload.needsRows {
                try cancellation.check(file: file)
                runs.decode(band: band, into: indexes)
                let rows = min(runs.bandHeight, header.size.height - band * runs.bandHeight)
                for line in stride(from: rows - 1, through: 0, by: -1) {
                    Self.expand(indexes + line * width, count: width, palette: header.palette, into: row)
                    upload.push(row)
                }
                band -= 1
            }
            isComplete = !runs.endsEarly
        } else {
            let available = pixels.count / header.stride
            for y in 0..<header.size.height where upload.needsRows {
                if y % 256 == 0 { try cancellation.check(file: file) }
                let stored = header.isBottomUp ? header.size.height - 1 - y : y
                guard stored < available else {
                    isComplete = false
                    break
                }
                convert(pixels.baseAddress! + stored * header.stride, header: header, into: row)
                upload.push(row)
            }
        }
        if !isComplete {
            let problem = "the file ends before its pixel data does"
            guard configuration.acceptsIncompleteData, upload.nextRow > 0 || header.compression != .none else {
                throw .incompleteImageData(file: file, detail: problem)
            }
            if upload.needsRows || header.compression != .none {
                warnings.append(PhotoWarning(.incompleteImageData, "\(problem); what is missing is filled in."))
            }
            upload.fillRemainingRows()
        }
        workspace.lastDecode = .init(size: header.size, isStripWise: true)
        let image = upload.finish()
        timings.decode += clock.now - start
        let profile = header.iccProfile.map { ICCProfile(bytes: Array(bytes[$0])) }
        return DecodedPhoto(
            metadata: PhotoMetadata(originalSize: header.size), uploadSize: uploadSize,
            extent: (Double(uploadSize.width), Double(uploadSize.height)), profile: profile,
            uploadSegments: profile?.jpegSegments ?? [], comments: [], stripUpload: image)
    }

    /// Palette indexes as RGB.
    private static func expand(
        _ indexes: UnsafePointer<UInt8>, count: Int, palette: [UInt8], into row: UnsafeMutablePointer<UInt8>
    ) {
        for x in 0..<count {
            let index = Int(indexes[x]) * 3
            row[x * 3] = palette[index]
            row[x * 3 + 1] = palette[index + 1]
            row[x * 3 + 2] = palette[index + 2]
        }
    }

    /// One stored row as RGB, or RGBA when the header has an alpha mask.
    private func convert(_ stored: UnsafeRawPointer, header: BMPHeader, into row: UnsafeMutablePointer<UInt8>) {
        let width = header.size.width
        let bytes = stored.assumingMemoryBound(to: UInt8.self)
        switch header.bitsPerPixel {
        case 1, 4, 8:
            let bits = header.bitsPerPixel
            for x in 0..<width {
                let bit = x * bits
                let index = Int((bytes[bit / 8] >> (8 - bits - bit % 8)) & UInt8((1 << bits) - 1)) * 3
                row[x * 3] = header.palette[index]
                row[x * 3 + 1] = header.palette[index + 1]
                row[x * 3 + 2] = header.palette[index + 2]
            }
        case 24:
            for x in 0..<width {
                row[x * 3] = bytes[x * 3 + 2]
                row[x * 3 + 1] = bytes[x * 3 + 1]
                row[x * 3 + 2] = bytes[x * 3]
            }
        default:
            let size = header.bitsPerPixel / 8
            let channels = header.hasAlpha ? 4 : 3
            for x in 0..<width {
                var value = UInt32(0)
                for byte in 0..<size { value |= UInt32(bytes[x * size + byte]) << (8 * UInt32(byte)) }
                for channel in 0..<channels {
                    row[x * channels + channel] = Self.scaled(value, header.channels[channel]!)
                }
            }
        }
    }

    /// A masked field scaled to 8 bits.
    private static func scaled(_ value: UInt32, _ channel: BMPHeader.Channel) -> UInt8 {
        let maximum = (UInt64(1) << UInt64(channel.bits)) - 1
        let field = UInt64(value >> UInt32(channel.shift)) & maximum
        return UInt8((field * 255 + maximum / 2) / maximum)
    }
}
