import Foundation

/// Gets one outbox entry to the engine. The drain calls it for one entry at a time, in queue
/// order (and never for an entry while an earlier one of its entity is not delivered), off the
/// outbox's bookkeeping: the actor is free while a send is in flight.
///
/// A transport maps the operation to the engine's requests: it uploads each of
/// `delivery.pendingUploads`, calls `reporter.uploadLanded(index:)` as each one lands (so that a
/// send killed half-way does not upload it again), reports progress as bytes go out, and then
/// sends the operation's record, using `delivery.id` as the request id and the idempotency key.
/// It answers with what the engine said; the outbox decides what that means.
///
/// An upload has landed, and a record is delivered, only when the engine's own answer says so:
/// a success status whose body is something else (a Wi-Fi login page, a proxy's JSON) is
/// `.notConfirmed`, never `.http` with that status, because a 2xx retires the entry and deletes
/// its files. When the task is cancelled, return (or throw) promptly: the outbox puts the entry
/// back in the queue without counting the attempt.
public protocol Transport: Sendable {
    /// Sends one entry.
    ///
    /// - Parameters:
    ///   - delivery: The entry's id, intent and the uploads still to do.
    ///   - reporter: Where to report each landed upload (durably) and the bytes sent so far.
    /// - Returns: The engine's answer, or how the request failed to get one.
    /// - Throws: Anything; a thrown error counts as a network error (transient).
    func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse

    /// Gives back upload resources that the outbox will not use again (a discarded entry's, or
    /// those of uploads sent again afresh), after a pass in which the engine answered. A
    /// transport that makes no resources has nothing to give back: the default drops them all.
    ///
    /// - Parameter resources: Each as the store kept it: untrusted, to be checked before it is followed.
    /// - Returns: Those not given back for a reason that may pass (the engine did not answer), to
    ///   be given back after a later pass.
    func giveBack(_ resources: [AbandonedUploadResource]) async -> [AbandonedUploadResource]
}

extension Transport {
    /// Drops every resource: a transport that makes none has none to give back.
    public func giveBack(_ resources: [AbandonedUploadResource]) async -> [AbandonedUploadResource] { [] }
}

/// A resumable upload resource that the outbox will not use again, as its store kept it.
public struct AbandonedUploadResource: Sendable, Hashable {
    /// The entry it was made for.
    public let id: String
    /// The upload's index in the entry.
    public let index: Int
    /// The resource's URL as the store kept it: untrusted text.
    public let resource: String

    /// Creates one, for a test of a transport (the outbox makes the real ones).
    public init(id: String, index: Int, resource: String) {
        self.id = id
        self.index = index
        self.resource = resource
    }
}

/// What a transport needs to send one entry: the operation as it was queued, and how far its
/// uploads have come.
public struct Delivery: Sendable, Hashable {
    /// The entry's id; also the engine's request id and the `Idempotency-Key`.
    public let id: String
    /// What the operation is about, for example "note:42"; nil for none.
    public let entity: String?
    /// The operation's type, for example "capture.create".
    public let type: String
    /// The version of its payload.
    public let version: Int
    /// Its arguments, the JSON text it was queued with.
    public let payload: Data
    /// A descriptor (index, SHA-256, size, media type) for every attachment.
    public let media: [MediaDescriptor]
    /// Which attempt this is, from 1.
    public let attempt: Int
    /// The attachments the engine does not have yet, in index order.
    public let pendingUploads: [PendingUpload]
    /// The bytes of every attachment, landed or not: the total for progress.
    public let totalBytes: Int64
    /// The bytes of the attachments that landed in earlier attempts: where progress starts.
    public let landedBytes: Int64
    /// The networks its type may be sent on (`OperationType.network`). The outbox hands it over
    /// only on a network it allows, as far as it knows; a transport that learns otherwise from
    /// the system (URLSession's `allowsExpensiveNetworkAccess`) answers `.networkNotAllowed`.
    public let network: NetworkRequirement

    /// Creates a delivery, for a test of a transport (the outbox makes the real ones).
    public init(
        id: String, entity: String?, type: String, version: Int, payload: Data, media: [MediaDescriptor],
        attempt: Int, pendingUploads: [PendingUpload], totalBytes: Int64, landedBytes: Int64,
        network: NetworkRequirement = .any
    ) {
        self.id = id
        self.entity = entity
        self.type = type
        self.version = version
        self.payload = payload
        self.media = media
        self.attempt = attempt
        self.pendingUploads = pendingUploads
        self.totalBytes = totalBytes
        self.landedBytes = landedBytes
        self.network = network
    }
}

/// One attachment still to send.
public struct PendingUpload: Sendable, Hashable {
    /// The attachment's index in its operation; the engine's upload URL ends with it.
    public let index: Int
    /// The file the attachment is kept in; it stays until the entry retires. In an encrypted
    /// outbox it holds ciphertext: always read the bytes to send with `contents()`.
    public let fileURL: URL
    /// The file's size in bytes.
    public let byteCount: Int64
    /// Its media type, the upload's `Content-Type`.
    public let contentType: String
    /// The resumable upload resource the engine made for it in an earlier send, perhaps by
    /// another process (`DeliveryReporter.uploadResourceMade(index:at:)`), as the store kept it:
    /// untrusted text, to be checked before it is followed; nil for none.
    public let keptUploadResource: String?
    /// What opens the file, in an encrypted outbox.
    let seal: MediaSeal?

    /// Creates a pending upload of a plaintext file, for a test of a transport (the outbox makes the real ones).
    public init(index: Int, fileURL: URL, byteCount: Int64, contentType: String, keptUploadResource: String? = nil) {
        self.init(
            index: index, fileURL: fileURL, byteCount: byteCount, contentType: contentType,
            keptUploadResource: keptUploadResource, seal: nil)
    }

    init(
        index: Int, fileURL: URL, byteCount: Int64, contentType: String, keptUploadResource: String?,
        seal: MediaSeal?
    ) {
        self.index = index
        self.fileURL = fileURL
        self.byteCount = byteCount
        self.contentType = contentType
        self.keptUploadResource = keptUploadResource
        self.seal = seal
    }

    /// The attachment's bytes, read without following a symbolic link and never more than the
    /// engine takes (64 MiB), so that nothing but the outbox's own regular file can be sent. In
    /// an encrypted outbox the file is opened a chunk at a time into the result, and nothing is
    /// returned unless all of it is authentic.
    ///
    /// - Throws: `OutboxError.media(.read)` when it is missing, not a regular file, too large,
    ///   unreadable, or fails authentication.
    public func contents() throws(OutboxError) -> Data {
        switch MediaFolder.contents(ofFileAt: fileURL.path, atMost: StoredValue.largestUpload, openedWith: seal) {
        case .success(let data): return data
        case .failure(let problem): throw .media(.read(path: fileURL.path, cause: problem.cause))
        }
    }
}

/// How an engine answered one send, or how the send failed to get an answer.
public enum TransportResponse: Sendable, Hashable {
    /// The engine answered with an HTTP status. `retryAfter` is the raw `Retry-After` header
    /// (seconds or an HTTP date) and `detail` a short explanation from the engine, both optional.
    case http(status: Int, retryAfter: String? = nil, detail: String? = nil)
    /// The request did not complete (no route, DNS failure, connection reset); `detail` says why.
    case networkError(detail: String)
    /// No answer came in time.
    case timedOut
    /// The server answered with a success status but not with the contract's answer: an HTML
    /// page, JSON that is not the engine's, an answer for other bytes, an empty or oversized body.
    /// Something between the device and the engine answered (a captive portal, a proxy), so
    /// nothing may count as delivered; `detail` says what came back.
    case notConfirmed(status: Int, detail: String)
    /// The engine refused the record with 422 because it does not hold an upload it was sent, or
    /// holds other bytes under its key (`code`: `upload_missing`, `checksum_mismatch`): it was
    /// restored from a backup, or another node answered. The outbox sends the uploads again.
    case uploadsNotHeld(code: String, detail: String)
    /// Nothing was sent: the system would not use the current network, `path`, for this
    /// entry's type (on Apple's platforms, URLSession's `networkUnavailableReason`). The entry
    /// goes back to the queue with no attempt counted and waits for its network, and the outbox
    /// takes `path` as the network it is on until the app says otherwise.
    case networkNotAllowed(path: NetworkPath)
}

/// Where an entry is among those one pass sends: the `number`th it started, of `count` it has
/// started or may still send ("3 of 21"). The count is taken when the pass starts sending, so it
/// grows if more are queued during the pass.
public struct QueuePosition: Sendable, Hashable, CustomStringConvertible {
    /// From 1.
    public let number: Int
    /// At least `number`.
    public let count: Int

    /// "3 of 21".
    public var description: String { "\(number) of \(count)" }
}

/// How far one entry's upload has come.
public struct UploadProgress: Sendable, Hashable {
    /// The entry's id.
    public let id: String
    /// The bytes sent so far.
    public let bytesSent: Int64
    /// The bytes of all the entry's attachments.
    public let totalBytes: Int64
    /// Where the entry is in the pass that sends it.
    public let position: QueuePosition

    /// The share sent, 0...1 (1 for an entry without attachments).
    public var fractionCompleted: Double { totalBytes == 0 ? 1 : Double(bytesSent) / Double(totalBytes) }
}
