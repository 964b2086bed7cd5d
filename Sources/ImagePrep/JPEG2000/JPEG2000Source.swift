internal import COpenJPEG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JPEG 2000 file, a JP2 container or a bare codestream (told apart by content, whatever the
/// name says), decoded by OpenJPEG at the smallest resolution level still at least the upload's
/// size. OpenJPEG decodes a whole image into 32-bit planes, so that size is checked against
/// `DecodeMemoryBudget` before anything is decoded; the planes then go to the upload a row at a
/// time (`RowStreamUpload`). The JP2 file's colour profile and its EXIF and XMP `uuid` boxes are
/// carried, with the EXIF's Orientation kept for the pixels as stored.
struct JPEG2000Source: PhotoSource {
    let context: PreparationContext

    static let jp2Signature: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    static let codestreamSignature: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]
    /// Adobe's and exiftool's `uuid` for a TIFF EXIF block in a JP2 file: "JpgTiffExif->JP2".
    static let exifUUID = Array("JpgTiffExif->JP2".utf8)
    /// XMP's `uuid` (BE7ACFCB-97A9-42E8-9C71-999491E3AFAC).
    static let xmpUUID: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: jp2Signature) || bytes.starts(with: codestreamSignature)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        var start = clock.now
        let isJP2 = bytes.starts(with: Self.jp2Signature)
        let decoder = try OpenJPEGDecoder(bytes, isJP2: isJP2, file: file)
        let header = decoder.image.pointee
        guard header.x1 > header.x0, header.y1 > header.y0 else {
            throw .corruptJPEG2000(file: file, detail: "its header gives an empty image")
        }
        let size = PixelSize(width: Int(header.x1 - header.x0), height: Int(header.y1 - header.y0))
        try context.checkPixelLimit(size)
        let componentCount = Int(header.numcomps)
        guard (1...4).contains(componentCount), header.comps != nil else {
            throw .unsupportedFormat(file: file, format: .jpeg2000Components(count: componentCount))
        }
        let uploadSize = size.fitting(longEdge: configuration.maxEdge)
        var reduction = 0
        while reduction < decoder.maxReduction,
            Self.reduced(size, by: reduction + 1).width >= uploadSize.width,
            Self.reduced(size, by: reduction + 1).height >= uploadSize.height
        {
            reduction += 1
        }
        // OpenJPEG holds each component's tile and image planes, 32 bits a sample.
        let reducedSize = Self.reduced(size, by: reduction)
        try context.checkDecodeMemory(.saturatingProduct(reducedSize.width, reducedSize.height, componentCount, 4, 2))
        timings.metadata += clock.now - start

        start = clock.now
        guard decoder.decode(reduction: reduction) else {
            throw .corruptJPEG2000(file: file, detail: "OpenJPEG could not decode its image data")
        }
        try cancellation.check(file: file)
        let image = decoder.image.pointee
        let components = (0..<componentCount).map { image.comps[$0] }
        let sourceSize = PixelSize(width: Int(components[0].w), height: Int(components[0].h))
        guard sourceSize.width > 0, sourceSize.height > 0,
            components.allSatisfy({ $0.data != nil && $0.w > 0 && $0.h > 0 })
        else { throw .corruptJPEG2000(file: file, detail: "OpenJPEG gave no samples for a component") }
        let colorSpace = image.color_space
        let isCMYK = colorSpace == OPJ_CLRSPC_CMYK && componentCount == 4
        let layout: RowStreamUpload.PixelLayout =
            switch componentCount {
            case 1: .gray
            case 2: .grayAlpha
            case 3: .rgb
            default: isCMYK ? .rgb : .rgba
            }
        let upload = try RowStreamUpload(
            context: context, sourceSize: sourceSize, uploadSize: uploadSize, layout: layout)
        let rows = JPEG2000Rows(
            components: components, size: sourceSize, isYCC: colorSpace == OPJ_CLRSPC_SYCC, isCMYK: isCMYK)
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: sourceSize.width * 4)
        defer { row.deallocate() }
        for y in 0..<sourceSize.height where upload.needsRows {
            rows.row(y, into: row)
            upload.push(row)
        }
        if decoder.errorCount > 0 {
            let damage = "OpenJPEG reported damage in its image data"
            guard configuration.acceptsIncompleteData else { throw .incompleteImageData(file: file, detail: damage) }
            warnings.append(PhotoWarning(.incompleteImageData, damage + "."))
        }
        workspace.lastDecode = .init(size: sourceSize, isStripWise: true)
        let planes = upload.finish()
        timings.decode += clock.now - start

        var metadata = PhotoMetadata(originalSize: size)
        var uploadSegments: [Data] = []
        if isJP2 { uploadSegments = boxSegments(bytes, metadata: &metadata, uploadSize: uploadSize) }
        var profile: ICCProfile?
        if image.icc_profile_len > 0, image.icc_profile_len <= JXLSource.maxProfileSize,
            let buffer = image.icc_profile_buf
        {
            profile = ICCProfile(bytes: Array(UnsafeBufferPointer(start: buffer, count: Int(image.icc_profile_len))))
        }
        if !isCMYK { uploadSegments += profile?.jpegSegments ?? [] }
        withExtendedLifetime(decoder) {}
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize, extent: (Double(uploadSize.width), Double(uploadSize.height)),
            strippedTurn: metadata.orientation ?? .up, profile: isCMYK ? nil : profile, uploadSegments: uploadSegments,
            comments: [], stripUpload: planes)
    }

    /// A side halved `reduction` times, rounded up as OpenJPEG rounds it.
    static func reduced(_ size: PixelSize, by reduction: Int) -> PixelSize {
        let divisor = 1 << reduction
        return PixelSize(width: (size.width + divisor - 1) / divisor, height: (size.height + divisor - 1) / divisor)
    }

    /// The EXIF and XMP `uuid` boxes: the EXIF read into `metadata` and carried as APP1 (some
    /// writers put `Exif\0\0` before its TIFF block, which `EmbeddedEXIF` passes over), the XMP
    /// carried as it is.
    private func boxSegments(
        _ bytes: UnsafeRawBufferPointer, metadata: inout PhotoMetadata, uploadSize: PixelSize
    ) -> [Data] {
        var exif: Data?
        var xmp: Data?
        for box in TopLevelBoxes(bytes) where box.type == "uuid" && box.payload.count > 16 {
            let body = UnsafeRawBufferPointer(rebasing: box.payload[16...])
            if exif == nil, box.payload.starts(with: Self.exifUUID) {
                let (segment, exifWarnings) = EmbeddedEXIF.read(body, into: &metadata, uploadSize: uploadSize)
                warnings += exifWarnings
                exif = segment
            } else if xmp == nil, box.payload.starts(with: Self.xmpUUID) {
                xmp = TIFFSource.xmpSegment(body)
            }
        }
        return [exif, xmp].compactMap { $0 }
    }
}
