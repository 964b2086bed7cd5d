import Foundation

/// prep-photo's peak memory on one photo at the pixel limit, at the edge sizes that once made it
/// grow without bound (1.2 GB at `--max-edge 1`, 3.2 GB at `--thumb-edge 1`): a record of what the
/// README's memory bound measures to, not a goal.
enum EdgeMemoryRun {
    /// The edges, each given to all three options and to the stripped copies alone.
    static let edges = [1, 2, 16, 400]

    /// A 10000x10000 JPEG (100 million pixels) with no image data: SOI, a
    /// quantization table of ones, a 4:2:0 frame, one-code Huffman tables, the scan header, EOI.
    /// With `--accept-incomplete` libjpeg decodes it all grey; the file is 150 bytes. A
    /// progressive one (SOF2, a DC scan) shows what libjpeg holds whatever the scale: every DCT
    /// coefficient of the image, 2 bytes a sample.
    static func header10000(progressive: Bool) -> [UInt8] {
        let quantization: [UInt8] = [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        let frame: [UInt8] = [
            0xFF, progressive ? 0xC2 : 0xC0, 0x00, 0x11, 0x08, 0x27, 0x10, 0x27, 0x10, 0x03, 0x01, 0x22, 0x00, 0x02,
            0x11, 0x00, 0x03, 0x11, 0x00,
        ]
        // One code of length 1, for symbol 0 (DC: no difference; AC: end of block).
        func huffman(_ tableClass: UInt8) -> [UInt8] {
            [0xFF, 0xC4, 0x00, 0x14, tableClass, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]
        }
        let spectralEnd: UInt8 = progressive ? 0x00 : 0x3F
        let scan: [UInt8] = [
            0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, spectralEnd, 0x00,
        ]
        return [0xFF, 0xD8] + quantization + frame + huffman(0x00) + huffman(0x10) + scan + [0xFF, 0xD9]
    }

    /// The runs measured, the defaults first: every edge for the baseline photo, the defaults
    /// and `--max-edge 1` for the progressive one.
    static var runs: [(progressive: Bool, options: [String])] {
        [(false, [])]
            + edges.map { (false, ["--max-edge", "\($0)", "--display-edge", "\($0)", "--thumb-edge", "\($0)"]) }
            + edges.map { (false, ["--display-edge", "\($0)", "--thumb-edge", "\($0)"]) }
            + [(true, []), (true, ["--max-edge", "1", "--display-edge", "1", "--thumb-edge", "1"])]
    }

    static func measure(
        prepPhoto: String, launcher: SpawnHelperPool, folder: String
    ) throws(BenchError) -> [EdgeMemoryResult] {
        var inputs: [Bool: String] = [:]
        for progressive in [false, true] {
            let input = "\(folder)/\(progressive ? "progressive" : "baseline")-10000x10000.jpg"
            do { try Data(header10000(progressive: progressive)).write(to: URL(fileURLWithPath: input)) } catch {
                throw .cannotWrite(path: input, reason: error.localizedDescription)
            }
            inputs[progressive] = input
        }
        return try runs.enumerated().map { (index, run) throws(BenchError) in
            let measurement = try launcher.run(
                [prepPhoto, "--accept-incomplete", "--out", "\(folder)/out-\(index)"] + run.options
                    + [inputs[run.progressive]!],
                stderrPath: "\(folder)/stderr-\(index).txt")
            let options = run.options.isEmpty ? "(the defaults)" : run.options.joined(separator: " ")
            return EdgeMemoryResult(
                options: (run.progressive ? "progressive: " : "") + options, peakRSSMB: measurement.peakRSSMB,
                wallMS: measurement.wallMS)
        }
    }
}

/// One prep-photo run of `EdgeMemoryRun`.
struct EdgeMemoryResult: Codable, Sendable {
    let options: String
    let peakRSSMB: Double
    let wallMS: Double
}
