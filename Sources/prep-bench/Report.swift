/// The markdown the benchmark prints: the tools side by side, the 48 MP rows, every batch form,
/// the stage breakdown and, when there are thresholds, the goals.
enum Report {
    static func markdown(
        _ results: BenchResults, summary: Summary, goals: [(tool: String, verdicts: [Thresholds.Verdict])],
        sizeTolerance: Double
    ) -> String {
        var lines: [String] = []
        let megapixels = results.regularPhotos.map(\.megapixels)
        lines.append(
            "prep-bench \(results.date), \(results.host), \(results.cores) cores, load average \(results.loadAverageAtStart) at the start and \(results.loadAverageAtEnd) at the end (shared machine: read the ratios)."
        )
        lines.append(
            "\(results.regularPhotos.count) photos of \(format(megapixels.min(), 1))–\(format(megapixels.max(), 1)) MP; "
                + "single photo: median (p90) over photos of each photo's median of \(results.runs) runs after a warm-up; "
                + "batch: median of \(results.batchRuns) batches, \(results.jobs) workers; "
                + "RSS: ru_maxrss from wait4 (floor of the harness: \(format(results.harnessRSSFloorMB, 1)) MB).")
        if let load = Double(results.loadAverageAtStart.split(separator: " ").first ?? ""), load >= 0.5 {
            lines.append(
                "The 1-minute load average was \(format(load, 1)) on \(results.cores) cores when the run started: with other "
                    + "work on the machine, batch figures understate the tools that need every core (compare the CPU ms per "
                    + "photo and the best batch).")
        }
        lines.append("")
        lines += [
            "| tool, job | batch photos/s | × vips | ms/photo (p90) | × vips | CPU ms | peak RSS MB | × vips | 2048 copy KB | SSIM-Y | Δ vips |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        lines += tableRows(summary.regular, sizeTolerance: sizeTolerance)
        for large in summary.large {
            // A large photo's rows follow, each tool against vips on that photo alone.
            let photo = results.largePhotos.first { $0.stem == large.photo }
            let label = photo.map { "\(format($0.megapixels, 0)) MP (\($0.width)x\($0.height))" } ?? large.photo
            lines += tableRows(large.rows.filter(\.isSubprocess), sizeTolerance: sizeTolerance, label: label)
        }
        if let heic = results.heic, let heicSummary = summary.heic {
            // The same photos as HEIC: --fast changes nothing there (no DCT scale).
            lines += tableRows(
                heicSummary.rows, sizeTolerance: sizeTolerance, label: "HEIC (\(heic.photos.count) photos)")
        }

        if let floorRatio = summary.heic?.floorRatio {
            lines.append("")
            lines.append(
                "HEIC: prep-photo's whole job takes \(format(floorRatio, 2))× the CPU of libde265 alone decoding the same "
                    + "tiles (dec265 -t 0 on the Annex B stream of each photo's tiles), median over photos.")
        }
        if !summary.huge.isEmpty {
            lines.append("")
            lines.append(
                "200 MP: one process per run, median of \(results.runs) runs after a warm-up; peak RSS the largest of them."
            )
            lines.append("")
            lines.append("| tool, photo | ms | CPU ms | peak RSS MB |")
            lines.append("|---|---|---|---|")
            for row in summary.huge {
                lines.append(
                    "| \(row.tool), \(row.photo.stem) (\(row.photo.width)x\(row.photo.height)) | \(format(row.wallMS, 0)) | "
                        + "\(format(row.cpuMS, 0)) | \(format(row.peakRSSMB, 0)) |")
            }
        }
        if !summary.sizeGroups.isEmpty {
            let names = summary.regular.filter(\.isSubprocess).map(\.name)
            let vipsName = Summary.vips(in: summary.regular)?.name
            lines.append("")
            lines.append("By original size: ms/photo (median of per-photo medians) and mean SSIM-Y (Δ vips):")
            lines.append("")
            lines.append(
                "| original, photos | "
                    + (names.map { "\($0) ms" } + names.map { "\($0) SSIM-Y" }).joined(separator: " | ") + " |")
            lines.append("|---|" + String(repeating: "---|", count: 2 * names.count))
            for group in summary.sizeGroups {
                let milliseconds = names.map { format(group.medianMS[$0], 0) }
                let ssims = names.map { name in
                    guard name != vipsName, let ours = group.meanSSIM[name],
                        let vips = vipsName.flatMap({ group.meanSSIM[$0] })
                    else {
                        return format(group.meanSSIM[name], 4)
                    }
                    return "\(format(ours, 4)) (\(signed(ours - vips, 4)))"
                }
                lines.append(
                    "| \(group.size), \(group.photoCount) | " + (milliseconds + ssims).joined(separator: " | ") + " |")
            }
        }

        lines.append("")
        lines.append(
            "| batch of the \(results.regularPhotos.count) photos | photos/s (median) | best | CPU ms/photo | peak RSS MB |"
        )
        lines.append("|---|---|---|---|---|")
        for batch in summary.batches {
            lines.append(
                "| \(batch.name) | \(format(batch.photosPerSecond, 1)) | \(format(batch.bestPhotosPerSecond, 1)) | "
                    + "\(format(batch.cpuMSPerPhoto, 0)) | \(format(batch.peakRSSMB, 0)) |")
        }

        lines.append("")
        lines.append(
            "Where the time goes: ImagePrep in-process, one photo at a time on one thread (so that the stages add up "
                + "to the whole job), ms, median over photos of each photo's median:")
        lines.append("")
        let stageNames = Stage.allCases.map(\.rawValue)
        lines.append("| mode, photos | whole job | p90 | CPU | " + stageNames.joined(separator: " | ") + " |")
        lines.append("|---|" + String(repeating: "---|", count: 3 + stageNames.count))
        for row in summary.stages + (results.heic.flatMap(HEICRun.stageRow).map { [$0] } ?? []) {
            let stages = Stage.allCases.map { format(row.stageMS[$0], 1) }
            lines.append(
                "| \(row.name) | \(format(row.medianMS, 1)) | \(format(row.p90MS, 1)) | \(format(row.cpuMS, 1)) | "
                    + stages.joined(separator: " | ") + " |")
        }

        if let edgeMemory = results.edgeMemory, !edgeMemory.isEmpty {
            lines.append("")
            lines.append(
                "Peak memory at every edge: prep-photo on a 10000x10000 photo (100 MP) with no image "
                    + "data, --accept-incomplete, one run each (a record, not a goal):")
            lines.append("")
            lines.append("| options | peak RSS MB | ms |")
            lines.append("|---|---|---|")
            for run in edgeMemory {
                lines.append("| \(run.options) | \(format(run.peakRSSMB, 1)) | \(format(run.wallMS, 0)) |")
            }
        }

        for (tool, verdicts) in goals {
            lines.append("")
            lines.append("Goals for \(tool) (Benchmarks/thresholds.json):")
            lines.append("")
            lines.append("| goal | measured | met |")
            lines.append("|---|---|---|")
            for verdict in verdicts {
                lines.append("| \(verdict.goal) | \(verdict.measured) | \(verdict.isMet ? "yes" : "**no**") |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Rows of the main table, each against the vipsthumbnail row among `rows`.
    ///
    /// - Parameters:
    ///   - sizeTolerance: outputs whose sides differ more from vips' are flagged beside their SSIM.
    ///   - label: what the rows are of, when not the regular photos.
    private static func tableRows(_ rows: [ToolSummary], sizeTolerance: Double, label: String? = nil) -> [String] {
        let vips = Summary.vips(in: rows)
        var lines: [String] = []
        for row in rows {
            func ratio(_ ours: Double?, _ theirs: Double?) -> String {
                guard let ours, let theirs, theirs > 0 else { return "-" }
                return format(ours / theirs, 2)
            }
            let singleRatio = row.isSubprocess ? ratio(row.singleMedianMS, vips?.singleMedianMS) : "(in-process)"
            let ssimDelta =
                row.name == "vipsthumbnail"
                ? "" : signed(row.meanSSIM.flatMap { ours in vips?.meanSSIM.map { ours - $0 } }, 4)
            var ssim = format(row.meanSSIM, 4)
            if let deviation = row.worstSizeDeviation, deviation > sizeTolerance {
                ssim += " (size \(format(deviation * 100, 1)) % off)"
            }
            lines.append(
                "| \(row.name), \(row.job)\(label.map { ", \($0)" } ?? "") | \(format(row.batchPhotosPerSecond, 1)) | \(ratio(row.batchPhotosPerSecond, vips?.batchPhotosPerSecond)) | "
                    + "\(format(row.singleMedianMS, 0)) (\(format(row.singleP90MS, 0))) | \(singleRatio) | \(format(row.singleCPUMS, 0)) | "
                    + "\(format(row.peakRSSMB, 0)) | \(ratio(row.peakRSSMB, vips?.peakRSSMB)) | \(format(row.meanKB, 0)) | \(ssim) | \(ssimDelta) |"
            )
        }
        return lines
    }
}
