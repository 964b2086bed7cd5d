import Foundation

/// The goals, read from `Benchmarks/thresholds.json` so that they change in one reviewed
/// file and never in code or unit tests. Every ratio is against vipsthumbnail in the same run.
struct Thresholds: Codable, Sendable {
    /// prep-photo's one-process batch rate over vipsthumbnail's faster batch form, at least.
    var minimumBatchRatio: Double
    /// prep-photo's single-photo wall time (median over photos) over vipsthumbnail's, at most.
    var maximumSinglePhotoRatio: Double
    /// prep-photo's peak RSS over vipsthumbnail's on the regular (12–16 MP) photos, at most.
    var maximumPeakRSSRatio: Double
    /// prep-photo's peak RSS on each large (48 MP) photo, in MiB, below.
    var maximumLargePhotoPeakRSSMB: Double
    /// How far prep-photo's mean SSIM-Y may fall below vipsthumbnail's, at most.
    var maximumSSIMDeficit: Double
    /// How far a side of prep-photo's upload copy may differ from vipsthumbnail's output, at most.
    var maximumSizeDeviation: Double
    /// prep-photo's CPU on a HEIC over libde265's alone decoding its tiles (the HEVC floor),
    /// median over photos, at most; judged when the run has HEIC rows (`--heic`).
    var maximumHEICFloorRatio: Double?
    /// prep-photo's HEIC batch rate over vipsthumbnail's, at least; judged with the HEIC rows.
    var minimumHEICBatchRatio: Double?
    /// prep-photo's peak RSS on each photo of about 200 MP, in MiB, at most; judged when the run
    /// has such photos (`--huge`).
    var maximumHugePhotoPeakRSSMB: Double?

    static func load(_ path: String) throws(BenchError) -> Thresholds {
        do {
            return try JSONDecoder().decode(Thresholds.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as DecodingError {
            throw .badThresholds(path: path, detail: "\(error)")
        } catch {
            throw .badThresholds(path: path, detail: error.localizedDescription)
        }
    }

    /// One goal judged.
    struct Verdict: Sendable, Codable {
        var goal: String
        var measured: String
        var isMet: Bool
    }

    /// Judges the row named `tool` against vipsthumbnail; a goal that cannot be measured (no
    /// vipsthumbnail, no 48 MP photo, `--no-quality`) counts as missed, saying why.
    func verdicts(for tool: String, in summary: Summary) -> [Verdict] {
        let ours = summary.regular.first { $0.name == tool }
        let vips = Summary.vips(in: summary.regular)
        var verdicts: [Verdict] = []
        func judge(
            _ goal: String, _ value: Double?, _ isMet: (Double) -> Bool, _ describe: (Double) -> String, missing: String
        ) {
            guard let value, value.isFinite else {
                verdicts.append(Verdict(goal: goal, measured: "not measured: \(missing)", isMet: false))
                return
            }
            verdicts.append(Verdict(goal: goal, measured: describe(value), isMet: isMet(value)))
        }
        let noVips = "vipsthumbnail did not run (see --vips)"

        judge(
            "batch throughput ≥ \(minimumBatchRatio)× vipsthumbnail",
            ratio(ours?.batchPhotosPerSecond, vips?.batchPhotosPerSecond), { $0 >= minimumBatchRatio },
            {
                "\(format($0, 2))× (\(format(ours?.batchPhotosPerSecond, 1)) vs \(format(vips?.batchPhotosPerSecond, 1)) photos/s; "
                    + "CPU per photo \(format(ratio(ours?.batchCPUMSPerPhoto, vips?.batchCPUMSPerPhoto), 2))×)"
            },
            missing: noVips)
        judge(
            "single-photo wall ≤ \(maximumSinglePhotoRatio)× vipsthumbnail",
            ratio(ours?.singleMedianMS, vips?.singleMedianMS), { $0 <= maximumSinglePhotoRatio },
            {
                "\(format($0, 2))× (\(format(ours?.singleMedianMS, 0)) vs \(format(vips?.singleMedianMS, 0)) ms; "
                    + "CPU \(format(ratio(ours?.singleCPUMS, vips?.singleCPUMS), 2))×)"
            },
            missing: noVips)
        judge(
            "peak RSS ≤ \(maximumPeakRSSRatio)× vipsthumbnail on 12–16 MP",
            ratio(ours?.peakRSSMB, vips?.peakRSSMB), { $0 <= maximumPeakRSSRatio },
            { "\(format($0, 2))× (\(format(ours?.peakRSSMB, 0)) vs \(format(vips?.peakRSSMB, 0)) MB)" }, missing: noVips
        )
        let largeRSS = summary.large.compactMap { $0.rows.first { $0.name == tool }?.peakRSSMB }.max()
        judge(
            "peak RSS < \(format(maximumLargePhotoPeakRSSMB, 0)) MB on 48 MP", largeRSS,
            { $0 < maximumLargePhotoPeakRSSMB },
            { "\(format($0, 0)) MB" }, missing: "no photo above \(PhotoSet.largePhotoMegapixels) MP was given (--extra)"
        )
        // Every original size on its own: a mean over all photos would hide one camera's loss.
        let classes = summary.sizeGroups.compactMap { group -> (size: String, deficit: Double)? in
            difference(group.meanSSIM[tool], group.meanSSIM["vipsthumbnail"]).map { (group.size, $0) }
        }
        let worstClass = classes.min { $0.deficit < $1.deficit }
        let overall = difference(ours?.meanSSIM, vips?.meanSSIM)
        judge(
            "SSIM-Y ≥ vipsthumbnail − \(maximumSSIMDeficit) in every size class",
            overall.map { min($0, worstClass?.deficit ?? $0) }, { $0 >= -maximumSSIMDeficit },
            { _ in
                "\(signed(overall, 4)) over all (\(format(ours?.meanSSIM, 4)) vs \(format(vips?.meanSSIM, 4)))"
                    + (worstClass.map { "; worst class \($0.size): \(signed($0.deficit, 4))" } ?? "")
            },
            missing: "needs vipsthumbnail and no --no-quality")
        let sizes = ([ours] + summary.large.map { $0.rows.first { $0.name == tool } }).compactMap {
            $0?.worstSizeDeviation
        }
        judge(
            "output size within ±\(format(maximumSizeDeviation * 100, 0)) % of vipsthumbnail's",
            sizes.max(), { $0 <= maximumSizeDeviation }, { "worst side \(format($0 * 100, 1)) % off" }, missing: noVips)
        if let heic = summary.heic {
            if let maximumHEICFloorRatio {
                judge(
                    "HEIC whole job CPU ≤ \(maximumHEICFloorRatio)× the HEVC floor", heic.floorRatio,
                    { $0 <= maximumHEICFloorRatio }, { "\(format($0, 2))×" },
                    missing: "no dec265 (see --dec265), or no .hevc beside the HEIC files")
            }
            if let minimumHEICBatchRatio {
                let heicOurs = heic.rows.first { $0.name == tool }
                let heicVips = Summary.vips(in: heic.rows)
                judge(
                    "HEIC batch throughput ≥ \(minimumHEICBatchRatio)× vipsthumbnail",
                    ratio(heicOurs?.batchPhotosPerSecond, heicVips?.batchPhotosPerSecond),
                    { $0 >= minimumHEICBatchRatio },
                    {
                        "\(format($0, 2))× (\(format(heicOurs?.batchPhotosPerSecond, 2)) vs \(format(heicVips?.batchPhotosPerSecond, 2)) photos/s)"
                    }, missing: noVips)
            }
        }
        if let maximumHugePhotoPeakRSSMB, !summary.huge.isEmpty {
            let peaks = summary.huge.filter { $0.tool == tool }
            judge(
                "peak RSS ≤ \(format(maximumHugePhotoPeakRSSMB, 0)) MB on every 200 MP photo",
                peaks.map(\.peakRSSMB).max(),
                { $0 <= maximumHugePhotoPeakRSSMB },
                { _ in peaks.map { "\($0.photo.stem): \(format($0.peakRSSMB, 0)) MB" }.joined(separator: ", ") },
                missing: "prep-photo did not run on them")
        }
        return verdicts
    }

    private func ratio(_ ours: Double?, _ theirs: Double?) -> Double? {
        guard let ours, let theirs, theirs > 0 else { return nil }
        return ours / theirs
    }

    private func difference(_ ours: Double?, _ theirs: Double?) -> Double? {
        guard let ours, let theirs else { return nil }
        return ours - theirs
    }
}

/// `value` with `decimals` digits after the point, or "-" when there is none.
func format(_ value: Double?, _ decimals: Int) -> String {
    guard let value, value.isFinite else { return "-" }
    return String(format: "%.\(decimals)f", value)
}

/// `value` with an explicit sign.
func signed(_ value: Double?, _ decimals: Int) -> String {
    guard let value, value.isFinite else { return "-" }
    return String(format: "%+.\(decimals)f", value)
}
