// What encryption at rest costs: `enqueue` (PhotoCapture's commit) of a 2048 px capture and a
// drain, on a plaintext store and on an encrypted one, side by side in the same run.
//
//     swift run -c release outbox-bench [--rounds N] [--folder DIR] PHOTO ...
//     swift run -c release outbox-bench --chain 10000 [--folder DIR]
//
// `--chain N` times instead what a long chain costs a drain, plaintext and encrypted: N
// operations of one entity whose first is parked (a pass looks at each and sends nothing), and
// N ready ones of as many entities sent to a transport that takes each at once.
//
// Each photo is prepared once (long edge 2048, timed: the "prepare" of prepare-and-enqueue). Then,
// round by round, each prepared capture is committed to both stores in turn, and each store is
// drained by a transport that reads every upload through `PendingUpload.contents()` (which
// opens a sealed file) and answers 200 without a network. The stores live in DIR (default: a
// folder in /dev/shm when there is one, where fsync costs nothing, so that what differs is the
// cryptography; give a folder on flash or disk to see it beside the fsyncs). Medians and p90s
// in milliseconds; timings are wall clock, on a shared machine: run it twice.

import Foundation
import ImagePrep
import Outbox
import PhotoCapture
import PlatformLayer

struct Options {
    var rounds = 30
    var chain: Int?
    var folder: URL?
    var photos: [String] = []
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--rounds": options.rounds = arguments.popFirst().flatMap(Int.init) ?? options.rounds
        case "--chain": options.chain = arguments.popFirst().flatMap(Int.init)
        case "--folder": options.folder = arguments.popFirst().map { URL(fileURLWithPath: $0, isDirectory: true) }
        case "--help", "-h":
            print("usage: outbox-bench [--rounds N] [--folder DIR] PHOTO ... | --chain N [--folder DIR]")
            exit(0)
        default: options.photos.append(argument)
        }
    }
    if options.photos.isEmpty {
        options.photos = ["Tests/Fixtures/corpus/gps-north-east-pixel-4048x3036-gps-offset-only.jpg"]
    }
    return options
}

/// A transport that takes every upload as the engine would (reads all its bytes) without a network.
struct ReadingTransport: Transport {
    func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
        for upload in delivery.pendingUploads {
            let bytes = try upload.contents()
            precondition(bytes.count == upload.byteCount)
            try await reporter.uploadLanded(index: upload.index)
        }
        return .http(status: 200)
    }
}

/// A key in memory.
struct BenchKey: KeyProvider {
    let key = OutboxKey.generate()
    func key(forStoreIn folder: URL) throws(OutboxError) -> OutboxKey { key }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    let rank = p / 100 * Double(sorted.count - 1)
    let lower = Int(rank.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - Double(lower))
}

func describe(_ values: [Double]) -> String {
    String(format: "median %7.3f  p90 %7.3f", percentile(values, 50), percentile(values, 90))
}

let options = parseOptions()
let base =
    options.folder
    ?? (FileManager.default.fileExists(atPath: "/dev/shm")
        ? URL(fileURLWithPath: "/dev/shm", isDirectory: true) : FileManager.default.temporaryDirectory)
let work = base.appendingPathComponent("outbox-bench-\(UUID().uuidString)", isDirectory: true)
defer { try? FileManager.default.removeItem(at: work) }

/// A transport that refuses the entry whose id starts with "head-" for good, and takes every other.
struct ChainTransport: Transport {
    func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
        delivery.id.hasPrefix("head-") ? .http(status: 422, detail: "refused") : .http(status: 200)
    }
}

/// The seconds of `drain` over `count` operations: one entity behind a parked head, or as many
/// entities ready to go.
func chainDrain(count: Int, parkedHead: Bool, in folder: URL, keyProvider: (any KeyProvider)?) async throws
    -> (seconds: Double, synced: Int)
{
    let outbox = try Outbox(
        folder: folder,
        configuration: Outbox.Configuration(operationTypes: [OperationType("bench.note")], keyProvider: keyProvider))
    try await outbox.write { transaction in
        for number in 0..<count {
            let id = (parkedHead && number == 0 ? "head-" : "note-") + String(number)
            _ = try transaction.enqueue(
                OutboxOperation(
                    id: id, entity: parkedHead ? "note:chain" : "note:\(number)", type: "bench.note",
                    payloadJSON: Data(#"{"text":"a line of a note"}"#.utf8)))
        }
    }
    if parkedHead { _ = try await outbox.drain(using: ChainTransport()) }
    let started = ContinuousClock.now
    let report = try await outbox.drain(using: ChainTransport())
    return (milliseconds(ContinuousClock.now - started) / 1000, report.synced.count)
}

if let count = options.chain {
    let sealedKey: any KeyProvider = BenchKey()
    for (name, key) in [("plaintext", nil), ("encrypted", sealedKey)] as [(String, (any KeyProvider)?)] {
        for parkedHead in [true, false] {
            let folder = work.appendingPathComponent("\(name)-\(parkedHead)")
            let (seconds, synced) = try await chainDrain(
                count: count, parkedHead: parkedHead, in: folder, keyProvider: key)
            let what = parkedHead ? "behind a parked head" : "ready, each its own entity"
            print(
                String(
                    format: "drain of %d operations %@, %@: %.3f s, %d sent (%.0f a second)", count, what, name,
                    seconds, synced, Double(synced) / max(seconds, 1e-9)))
        }
    }
    exit(0)
}

var configuration = PhotoPreparer.Configuration()
configuration.displayEdge = nil
configuration.thumbnailEdge = nil
let preparer = try PhotoPreparer(configuration: configuration)
let workspace = PreparationWorkspace()
let clock = ContinuousClock()
var prepareTimes: [Double] = []
var photos: [PreparedPhoto] = []
for path in options.photos {
    let url = URL(fileURLWithPath: path)
    _ = try await preparer.prepare(contentsOf: url, workspace: workspace)  // warm-up
    var photo: PreparedPhoto?
    for _ in 0..<3 {
        let started = clock.now
        photo = try await preparer.prepare(contentsOf: url, workspace: workspace)
        prepareTimes.append(milliseconds(clock.now - started))
    }
    photos.append(photo!)
}

let plain = try Outbox(folder: work.appendingPathComponent("plain"))
let sealed = try Outbox(
    folder: work.appendingPathComponent("sealed"), configuration: Outbox.Configuration(keyProvider: BenchKey()))
var enqueue: [String: [Double]] = ["plain": [], "sealed": []]
var drain: [String: [Double]] = ["plain": [], "sealed": []]
var enqueueCPU: [String: [Double]] = ["plain": [], "sealed": []]
var drainCPU: [String: [Double]] = ["plain": [], "sealed": []]
let stores = [("plain", plain), ("sealed", sealed)]
for round in 0..<(options.rounds + 1) {
    for (name, store) in (round % 2 == 0 ? stores : stores.reversed()) {
        var committed: [Double] = []
        var committedCPU: [Double] = []
        for photo in photos {
            let started = clock.now
            let startedCPU = ProcessClock.cpuMilliseconds()
            _ = try await store.commit(idPrefix: "bench-", kind: "bench", note: "a note", photos: [photo])
            committed.append(milliseconds(clock.now - started))
            committedCPU.append(ProcessClock.cpuMilliseconds() - startedCPU)
        }
        let started = clock.now
        let startedCPU = ProcessClock.cpuMilliseconds()
        let report = try await store.drain(using: ReadingTransport())
        let drained = milliseconds(clock.now - started)
        let drainedCPU = ProcessClock.cpuMilliseconds() - startedCPU
        precondition(report.synced.count == photos.count)
        try await store.retireSynced()
        // Round 0 warms up.
        if round > 0 {
            enqueue[name]! += committed
            drain[name]! += [drained / Double(photos.count)]
            enqueueCPU[name]! += committedCPU
            drainCPU[name]! += [drainedCPU / Double(photos.count)]
        }
    }
}

let uploadBytes = photos.map(\.upload.data.count).reduce(0, +) / photos.count
print(
    "outbox-bench: \(photos.count) photo(s), upload copies of \(uploadBytes / 1024) KiB on average, \(options.rounds) rounds, stores in \(base.path)"
)
print("prepare (2048 px)          wall \(describe(prepareTimes)) ms")
for (label, wall, cpu) in [("enqueue", enqueue, enqueueCPU), ("drain per entry", drain, drainCPU)] {
    for name in ["plain", "sealed"] {
        let title = "\(label), \(name == "plain" ? "plaintext" : "encrypted")".padding(
            toLength: 26, withPad: " ", startingAt: 0)
        print("\(title) wall \(describe(wall[name]!))   cpu \(describe(cpu[name]!)) ms")
    }
}
func added(_ values: [String: [Double]]) -> Double {
    percentile(values["sealed"]!, 50) - percentile(values["plain"]!, 50)
}
let whole = percentile(prepareTimes, 50) + percentile(enqueue["sealed"]!, 50)
print(
    String(
        format:
            "encryption adds to an enqueue %.3f ms wall, %.3f ms cpu (%.2f %% of prepare-and-enqueue, %.1f ms); to a drain %.3f ms wall, %.3f ms cpu per entry",
        added(enqueue), added(enqueueCPU), 100 * added(enqueue) / whole, whole, added(drain), added(drainCPU)))
