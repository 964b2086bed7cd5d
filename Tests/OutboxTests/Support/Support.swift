import Foundation
@_exported import TestSupport
import Testing

@testable import Outbox

/// A photo as a capture carries it: the JPEG bytes of a corpus file as the upload copy, with its
/// pixel size (from `Fixtures/corpus/expected.json`). The Outbox tests need nothing of ImagePrep.
struct TestPhoto {
    let upload: OperationAttachment
}

enum Photos {
    /// A landscape photo.
    static func landscape() throws -> TestPhoto { try photo("orientation-landscape-1.jpg", width: 1800, height: 1200) }

    /// A portrait photo.
    static func portrait() throws -> TestPhoto { try photo("orientation-portrait-1.jpg", width: 1200, height: 1800) }

    /// A photo with GPS (south-east Australia).
    static func australia() throws -> TestPhoto { try photo("gps-south-east-australia.jpg", width: 494, height: 327) }

    private static func photo(_ name: String, width: Int, height: Int) throws -> TestPhoto {
        TestPhoto(
            upload: OperationAttachment(
                data: try Fixtures.data("corpus/" + name), contentType: "image/jpeg", width: width, height: height))
    }
}

/// A photo capture with fixed values around the given photos, as PhotoCapture makes one.
func makeCapture(id: String, photos: [TestPhoto]? = nil) throws -> OutboxOperation {
    try OutboxOperation(
        id: id, type: OperationType.captureCreate.name,
        payloadJSON: Data(
            #"{"capturedAt":"2024-04-30T14:02:05+02:00","kind":"plate","note":"front gate","timeZone":"Europe/Berlin"}"#
                .utf8),
        attachments: (photos ?? [try Photos.landscape()]).map(\.upload))
}

/// An operation of a type the tests declare (`TestTypes`), on `entity`.
func makeOperation(
    id: String, entity: String?, type: String = "note.update", payload: String = #"{"text":"gate left open"}"#,
    attachments: [OperationAttachment] = []
) throws(OutboxError) -> OutboxOperation {
    try OutboxOperation(id: id, entity: entity, type: type, payloadJSON: Data(payload.utf8), attachments: attachments)
}

/// The operation types the tests' app knows: photo captures, note updates (last write wins) and
/// note appends (every one counts).
enum TestTypes {
    static let noteUpdate = OperationType("note.update", isLastWriteWins: true)
    static let noteAppend = OperationType("note.append")
    static let all: [OperationType] = [.captureCreate, noteUpdate, noteAppend]
}

/// A clock that moves only when a test moves it.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_714_478_525)) { current = Locked(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// A configuration that reads this clock, in a fixed time zone.
    var configuration: Outbox.Configuration { configuration() }

    /// A configuration that reads this clock, in a fixed time zone, with a fixed "random" jitter,
    /// knowing the tests' operation types.
    func configuration(backoff: Backoff = Backoff(), randomUnit: Double = 0.5) -> Outbox.Configuration {
        Outbox.Configuration(
            operationTypes: TestTypes.all, now: { self.now }, timeZone: TimeZone(identifier: "Europe/Berlin")!,
            backoff: backoff, randomUnit: { randomUnit })
    }
}

/// Waits, up to 10 s, until no `Outbox` value holds `folder` open. The last reference to an
/// actor can outlive the `await` that last used it: its executor lets go of it just after
/// resuming the caller, on another thread. A test that reopens the folder to see what an opener
/// alone does (put a send back, sweep files) waits for this first; otherwise, on a loaded
/// machine, the new opener can still find the old one there and rightly leave both alone.
func waitUntilNoOpener(of folder: URL) async throws {
    let descriptor = open(folder.appendingPathComponent("outbox.lock").path, O_RDWR | O_CLOEXEC)
    try #require(descriptor >= 0, "the outbox's lock file opens")
    defer { close(descriptor) }
    let deadline = ContinuousClock.now + .seconds(10)
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
        try #require(ContinuousClock.now < deadline, "an outbox still holds the folder after 10 s")
        try await Task.sleep(for: .milliseconds(5))
    }
    flock(descriptor, LOCK_UN)
}

/// The regular files in an outbox's media folder, sorted.
func mediaFileNames(in folder: URL) throws -> [String] {
    try MediaFolder(url: folder.appendingPathComponent("media")).regularFileNames().sorted()
}

/// Runs SQL on an outbox's database directly, as another (older, or broken) writer would.
func withRawDatabase<R>(in folder: URL, _ body: (borrowing SQLiteDatabase) throws -> R) throws -> R {
    let database = try SQLiteDatabase(path: folder.appendingPathComponent(OutboxStore.databaseName).path)
    database.setBusyTimeout(milliseconds: 5000)
    return try body(database)
}

/// A transport that answers from a script, records what it was asked to send, and can land
/// each pending upload (reading the real file) before it answers.
actor ScriptedTransport: Transport {
    private var responses: [TransportResponse]
    private let landsUploads: Bool
    private let duringSend: (@Sendable (Delivery) async throws -> Void)?
    /// Every delivery, in the order they came.
    private(set) var deliveries: [Delivery] = []
    /// The bytes of every upload it landed, as `PendingUpload.contents()` gave them, in order.
    private(set) var uploadedBytes: [Data] = []

    /// - Parameters:
    ///   - responses: The answers, one per send; 200 once they run out.
    ///   - landsUploads: Whether to upload (read) each pending file and report it landed first.
    ///   - duringSend: Runs in the middle of each send, after the uploads and before the answer.
    init(
        _ responses: [TransportResponse] = [], landsUploads: Bool = false,
        duringSend: (@Sendable (Delivery) async throws -> Void)? = nil
    ) {
        self.responses = responses
        self.landsUploads = landsUploads
        self.duringSend = duringSend
    }

    var sentIDs: [String] { deliveries.map(\.id) }

    func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
        deliveries.append(delivery)
        let response = responses.isEmpty ? .http(status: 200) : responses.removeFirst()
        if landsUploads {
            var sent = delivery.landedBytes
            for upload in delivery.pendingUploads {
                let bytes = try upload.contents()
                uploadedBytes.append(bytes)
                sent += Int64(bytes.count)
                reporter.progress(bytesSent: sent)
                try await reporter.uploadLanded(index: upload.index)
            }
        }
        try await duringSend?(delivery)
        return response
    }
}
