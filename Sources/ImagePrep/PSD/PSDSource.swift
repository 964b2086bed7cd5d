#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Photoshop file's merged composite (PSD and PSB; 1, 8 and 16 bits; bitmap, gray, duotone,
/// indexed, RGB and CMYK), read by ImagePrep itself: no Debian library reads it a row at a time.
/// Its layers are not flattened: a file saved without a real composite is refused in words.
/// Rows go to the upload top to bottom (`PSDChannelRows`, `RowStreamUpload`), with the file's
/// ICC profile, EXIF (Orientation kept, for the pixels as stored) and XMP resources carried.
struct PSDSource: PhotoSource {
    let context: PreparationContext

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool { PSDHeader.hasSignature(bytes) }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        let start = clock.now
        let header = try PSDHeader(bytes, file: file)
        let mode = try colorMode(header)
        try context.checkPixelLimit(header.size)
        guard header.imageData.count > 2, header.hasRealComposite else { throw .psdWithoutComposite(file: file) }
        var method = PSDFieldReader(header.imageData)
        guard let compression = PSDHeader.Compression(rawValue: method.u16()) else {
            throw .corruptPSD(file: file, detail: "its composite names an unknown compression")
        }
        guard compression == .raw || compression == .runLength else {
            throw .unsupportedFormat(
                file: file,
                format: .photoshopComposite(
                    reason: "its composite is ZIP-compressed, which Photoshop writes only for 32-bit files"))
        }
        let colorChannels = [.rgb: 3, .cmyk: 4][mode] ?? 1
        guard header.channelCount >= colorChannels else {
            throw .corruptPSD(file: file, detail: "its header gives fewer channels than its colour mode has")
        }
        let hasAlpha = header.hasMergedTransparency && header.channelCount > colorChannels && mode != .cmyk
        let channels = Array(0..<(colorChannels + (hasAlpha ? 1 : 0)))
        guard
            var rows = PSDChannelRows(
                section: UnsafeRawBufferPointer(rebasing: header.imageData[2...]),
                isRunLength: compression == .runLength,
                isLarge: header.isLarge, channelCount: header.channelCount, channels: channels, size: header.size,
                depth: header.depth)
        else { throw .corruptPSD(file: file, detail: "its composite's table of row lengths runs past the end") }

        let uploadSize = header.size.fitting(longEdge: configuration.maxEdge)
        var metadata = PhotoMetadata(originalSize: header.size)
        var uploadSegments: [Data] = []
        if let exif = header.resources[PSDHeader.exifResource] {
            let (segment, exifWarnings) = EmbeddedEXIF.read(exif, into: &metadata, uploadSize: uploadSize)
            warnings += exifWarnings
            uploadSegments += segment.map { [$0] } ?? []
        }
        if let xmp = header.resources[PSDHeader.xmpResource], let segment = TIFFSource.xmpSegment(xmp) {
            uploadSegments.append(segment)
        }
        let profile = header.resources[PSDHeader.iccResource].map { ICCProfile(bytes: Array($0)) }
        let transform =
            mode == .cmyk ? profile.flatMap { ColorConverter.cmykTransform(for: $0, isInverted: true) } : nil
        if mode == .cmyk, profile != nil, transform == nil {
            warnings.append(
                PhotoWarning(.colorProfile, "the CMYK ICC profile could not be used; colours are approximate."))
        }

        let layout: RowStreamUpload.PixelLayout =
            switch (mode, hasAlpha) {
            case (.rgb, false), (.cmyk, _), (.indexed, false): .rgb
            case (.rgb, true), (.indexed, true): .rgba
            case (_, false): .gray
            case (_, true): .grayAlpha
            }
        let upload = try RowStreamUpload(
            context: context, sourceSize: header.size, uploadSize: uploadSize, layout: layout)
        let width = header.size.width
        let stored = UnsafeMutablePointer<UInt8>.allocate(capacity: rows.rowBytes)
        defer { stored.deallocate() }
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 7)
        defer { pixels.deallocate() }
        let sampleCount = mode == .cmyk ? 4 : channels.count
        for y in 0..<header.size.height where upload.needsRows {
            if y % 256 == 0 { try cancellation.check(file: file) }
            for index in channels.indices {
                rows.read(channel: index, row: y, into: stored)
                Self.interleave(stored, depth: header.depth, width: width, into: pixels + index, step: sampleCount)
            }
            switch mode {
            case .bitmap:
                for x in 0..<width { pixels[x] = pixels[x] == 0 ? 255 : 0 }  // 1 is black
            case .indexed:
                Self.expand(pixels, width: width, hasAlpha: hasAlpha, palette: header.palette)
            case .cmyk:
                if let transform {
                    transform.apply(pixels, into: pixels + width * 4, count: width)
                    pixels.update(from: pixels + width * 4, count: width * 3)
                } else {
                    _ = ColorConverter.convertCMYK(pixels, into: pixels, count: width, isInverted: true, profile: nil)
                }
            default:
                break
            }
            upload.push(pixels)
        }
        if rows.isDamaged {
            let problem = "its composite image data is damaged or cut short"
            guard configuration.acceptsIncompleteData else { throw .incompleteImageData(file: file, detail: problem) }
            warnings.append(PhotoWarning(.incompleteImageData, "\(problem); what is missing is black."))
        }
        workspace.lastDecode = .init(size: header.size, isStripWise: true)
        let image = upload.finish()
        timings.decode += clock.now - start
        let isRGBProfile = mode != .cmyk
        if isRGBProfile { uploadSegments += profile?.jpegSegments ?? [] }
        return DecodedPhoto(
            metadata: metadata, uploadSize: uploadSize, extent: (Double(uploadSize.width), Double(uploadSize.height)),
            strippedTurn: metadata.orientation ?? .up, profile: isRGBProfile ? profile : nil,
            uploadSegments: uploadSegments, comments: [], stripUpload: image)
    }

    /// The colour mode, when ImagePrep reads it at the header's depth.
    private func colorMode(_ header: PSDHeader) throws(ImagePrepError) -> PSDHeader.ColorMode {
        let mode = PSDHeader.ColorMode(rawValue: header.colorMode)
        let names: [PSDHeader.ColorMode: String] = [.multichannel: "multichannel", .lab: "Lab"]
        guard let mode, names[mode] == nil else {
            let name = mode.flatMap { names[$0] } ?? "colour mode \(header.colorMode)"
            throw .unsupportedFormat(
                file: file, format: .photoshopComposite(reason: "its composite is \(name), which is not read here"))
        }
        let depths = mode == .bitmap ? [1] : [8, 16]
        guard depths.contains(header.depth) else {
            throw .unsupportedFormat(
                file: file,
                format: .photoshopComposite(
                    reason: "its composite has \(header.depth) bits a channel, where 1 (bitmap), 8 and 16 are read"))
        }
        if mode == .indexed, header.palette.count < 768 {
            throw .corruptPSD(file: file, detail: "its indexed colours' palette is cut short")
        }
        return mode
    }

    /// One channel's stored row as 8-bit samples, every `step`th byte of `output`.
    private static func interleave(
        _ stored: UnsafePointer<UInt8>, depth: Int, width: Int, into output: UnsafeMutablePointer<UInt8>, step: Int
    ) {
        switch depth {
        case 1:
            for x in 0..<width { output[x * step] = (stored[x / 8] >> (7 - UInt8(x % 8))) & 1 }
        case 16:
            for x in 0..<width { output[x * step] = stored[x * 2] }  // the high byte, rounding down as peers do
        default:
            for x in 0..<width { output[x * step] = stored[x] }
        }
    }

    /// Palette indexes (with alpha after each when there is one) as RGB or RGBA, back to front
    /// so that the row is expanded in place.
    private static func expand(
        _ pixels: UnsafeMutablePointer<UInt8>, width: Int, hasAlpha: Bool, palette: UnsafeRawBufferPointer
    ) {
        let inStep = hasAlpha ? 2 : 1
        let outStep = hasAlpha ? 4 : 3
        for x in stride(from: width - 1, through: 0, by: -1) {
            let index = Int(pixels[x * inStep])
            let alpha = hasAlpha ? pixels[x * inStep + 1] : 0
            pixels[x * outStep] = palette[index]
            pixels[x * outStep + 1] = palette[256 + index]
            pixels[x * outStep + 2] = palette[512 + index]
            if hasAlpha { pixels[x * outStep + 3] = alpha }
        }
    }
}
