import Foundation
import ImagePrep

/// A command-line tool timed as a subprocess, with the exact arguments each run uses.
struct CommandTool: Sendable {
    enum Kind: Sendable, Equatable {
        /// libvips' thumbnailer making only the 2048 copy: the peer the goals are measured against.
        case vipsthumbnail
        /// Our command making the whole job; `isFast` adds `--fast`.
        case prepPhoto(isFast: Bool)
        /// libde265's own decoder on a HEIC's tiles alone (the `.hevc` beside it): the CPU that
        /// the HEIC rows' whole job cannot go below.
        case hevcFloor
        /// The format's own library alone decoding a `--format` file (`prep-bench --decode-floor`): the
        /// floor beside the `--format` rows.
        case decodeFloor
    }

    let kind: Kind
    let executable: String
    /// Batch workers for tools that take a count.
    let jobs: Int

    init(kind: Kind, executable: String, jobs: Int) {
        self.kind = kind
        self.executable = executable
        self.jobs = jobs
    }

    /// The tool that `name` names, as saved in `BenchResults.toolNames`.
    init?(name: String, executable: String, jobs: Int) {
        let kinds: [Kind] = [
            .vipsthumbnail, .prepPhoto(isFast: false), .prepPhoto(isFast: true), .hevcFloor, .decodeFloor,
        ]
        guard let kind = kinds.first(where: { CommandTool(kind: $0, executable: "", jobs: 0).name == name }) else {
            return nil
        }
        self.init(kind: kind, executable: executable, jobs: jobs)
    }

    /// The tool `--check` holds to the goals: prep-photo in its default mode.
    static let checkedName = CommandTool(kind: .prepPhoto(isFast: false), executable: "", jobs: 0).name

    var name: String {
        switch kind {
        case .vipsthumbnail: "vipsthumbnail"
        case .prepPhoto(let isFast): isFast ? "prep-photo --fast" : "prep-photo"
        case .hevcFloor: "dec265 -t 0"
        case .decodeFloor: "decoder alone"
        }
    }

    /// What the tool makes, for the table.
    var job: String {
        switch kind {
        case .vipsthumbnail: "2048 only"
        case .prepPhoto: "whole job"
        case .hevcFloor: "the HEVC floor: its tiles decoded alone"
        case .decodeFloor: "the floor: the format's own library decoding it alone"
        }
    }

    /// One photo: `vipsthumbnail PHOTO --size 2048 -o FOLDER/STEM.jpg[Q=85]` (the form
    /// `../shared/bench/bench.py` times), or `prep-photo --overwrite --out FOLDER PHOTO` (each run
    /// writes over the last one's copies, as vipsthumbnail does).
    func arguments(for photo: BenchPhoto, into folder: String) -> [String] {
        switch kind {
        case .vipsthumbnail:
            // An absolute -o path: a relative one would land next to the input, in the read-only set.
            [executable, photo.path, "--size", "2048", "-o", "\(folder)/\(photo.stem).jpg[Q=85]"]
        case .prepPhoto(let isFast):
            [executable] + (isFast ? ["--fast"] : []) + pixelLimit(for: [photo])
                + ["--overwrite", "--out", folder, photo.path]
        case .hevcFloor:
            // One process, no worker threads: libde265 alone, as ImagePrep drives it.
            [executable, "-q", "-t", "0", Self.hevcStream(of: photo)]
        case .decodeFloor:
            [executable, "--decode-floor", photo.path]
        }
    }

    /// The Annex B stream of a HEIC's tiles, beside it (`Benchmarks/make-heic.sh` writes it).
    static func hevcStream(of photo: BenchPhoto) -> String {
        URL(fileURLWithPath: photo.path).deletingPathExtension().appendingPathExtension("hevc").path
    }

    /// `--max-pixels` for photos above prep-photo's default limit, which it would refuse.
    private func pixelLimit(for photos: [BenchPhoto]) -> [String] {
        let largest = photos.map { $0.width * $0.height }.max() ?? 0
        return largest > PhotoPreparer.Configuration().maxPixels ? ["--max-pixels", "\(largest)"] : []
    }

    /// All photos in one process: `vipsthumbnail FILES --size 2048 -o 'FOLDER/%s.jpg[Q=85]'`
    /// (bench.py's one-process batch form), or `prep-photo --overwrite --jobs N --out FOLDER FILES`.
    func batchArguments(for photos: [BenchPhoto], into folder: String) -> [String] {
        switch kind {
        case .vipsthumbnail:
            [executable] + photos.map(\.path) + ["--size", "2048", "-o", "\(folder)/%s.jpg[Q=85]"]
        case .prepPhoto(let isFast):
            [executable] + (isFast ? ["--fast"] : []) + pixelLimit(for: photos)
                + ["--overwrite", "--jobs", "\(jobs)", "--out", folder] + photos.map(\.path)
        case .hevcFloor, .decodeFloor:
            // A floor decodes one file; it is a single photo's CPU.
            preconditionFailure("a floor is timed one photo at a time")
        }
    }

    /// Where the 2048 copy (ImagePrep's upload copy) of `photo` lands in `folder`.
    func uploadPath(for photo: BenchPhoto, in folder: String) -> String { "\(folder)/\(photo.stem).jpg" }
}
