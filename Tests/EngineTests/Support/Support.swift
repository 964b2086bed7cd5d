import Foundation
import ImagePrep
import PhotoCapture
@_exported import TestSupport
import Testing

@testable import Outbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A capture around prepared photos, with fixed values the engine's record can be checked against.
func makeCapture(
    id: String, photos: [PreparedPhoto], capturedAt: String = "2024-04-30T14:02:05+02:00", place: GeoPoint? = nil
) throws -> Capture {
    try Capture(
        id: id, kind: "plate", note: "front gate", capturedAt: capturedAt, timeZone: "Europe/Berlin", place: place,
        uploads: photos.map(\.upload))
}

/// Polls `condition` every 20 ms until it holds, for at most `seconds`: for waiting on another
/// process, never for asserting how long something took. A poll that throws (the other process
/// busy, a request that timed out) counts as not yet, until the last one.
func waitUntil(seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

struct EngineTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A clock that moves only when a test moves it.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_714_478_525)) { current = Locked(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// A configuration that reads this clock, with a fixed "random" jitter (the middle of its range).
    var configuration: Outbox.Configuration { Outbox.Configuration(now: { self.now }, randomUnit: { 0.5 }) }
}

/// Runs SQL on an outbox's database directly, as another (older, broken or hostile) writer would.
func withRawDatabase<R>(in folder: URL, _ body: (borrowing SQLiteDatabase) throws -> R) throws -> R {
    let database = try SQLiteDatabase(path: folder.appendingPathComponent(OutboxStore.databaseName).path)
    database.setBusyTimeout(milliseconds: 5000)
    return try body(database)
}

/// A small photo from the real pipeline, different for each `number`.
func smallPhoto(_ number: Int = 0) throws -> PreparedPhoto {
    let names = ["no-exif.jpg", "exif-little-endian-canon-40d.jpg", "offset-plus0200-pixel8pro-8x8.jpg"]
    return try Fixtures.prepared(Fixtures.corpus.appendingPathComponent(names[number % names.count]))
}

/// The engine holds `id` once, made by one POST answered 201 (after any refusals that made nothing).
func expectDeliveredOnce(
    _ id: String, to engine: ReferenceEngine, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let state = try await engine.state()
    #expect(state.records.filter { $0.requestId == id }.count == 1, "one record", sourceLocation: sourceLocation)
    let created = state.requests(about: id).filter {
        $0.method == "POST" && !$0.path.hasPrefix("/v1/uploads/") && $0.outcome == .status(201)
    }
    #expect(created.count == 1, "created once: \(state.requests(about: id))", sourceLocation: sourceLocation)
}
