import Foundation

/// One operation in the outbox (a photo capture, a note's edit), as the store held it when it was read.
public struct OutboxEntry: Sendable, Hashable, Identifiable {
    /// Where an entry is on its way to the engine.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Waiting to be sent.
        case queued = "QUEUED"
        /// Being sent right now (at most one entry per drain). Put back to `queued` when the store
        /// opens, because a process that died mid-send leaves it so; the engine dedupes the resend.
        case syncing = "SYNCING"
        /// The engine has it; `Outbox.retire` may now delete it and its files.
        case synced = "SYNCED"
        /// The engine refused it for good (for example HTTP 422); it waits for the user, with
        /// the reason in `lastError`.
        case failedNeedsAttention = "FAILED_NEEDS_ATTENTION"
    }

    /// The id minted on the device (the caller's prefix and a unique part); also the engine's request id.
    public let id: String
    /// The queue order: a number that only grows and is never reused, even after entries retire.
    public let sequence: Int64
    /// Where the entry is on its way to the engine.
    public let state: State
    /// When the entry was queued, by the device's clock; the epoch for a record that did not store it.
    public let createdAt: Date
    /// How many times a send was started (a cancelled one does not count).
    public let attempts: Int
    /// Why the last send failed, in words for the app's UI; nil when none has failed since the last success.
    public let lastError: String?
    /// What the operation is about, for example "note:42"; nil for one that waits for nothing.
    public let entity: String?
    /// The operation's type, for example "capture.create" or "note.update".
    public let type: String
    /// The version of its payload.
    public let version: Int
    /// Its arguments, as the JSON text it was queued with.
    public let payload: Data
    /// One descriptor per attachment (a capture's photos), in order.
    public let media: [MediaDescriptor]
    /// The attachments the engine does not have yet; a transport reports each one as it lands.
    public let pendingMedia: [MediaFile]
    /// Every file the entry owns, deleted when it retires or is discarded; never used up by sending.
    public let ownedMedia: [MediaFile]
    /// The earlier entry of the same entity that this one waits behind (it is being sent, backs
    /// off, is parked, waits for "send now", or cannot be read); nil when it waits for none.
    public internal(set) var blockedBy: String?
    /// The networks its type may use, when the outbox is on none of them (as the app last said,
    /// `Outbox.connectivityChanged(isReachable:network:)`): it waits, queued; nil when it may go.
    public internal(set) var waitsForNetwork: NetworkRequirement?
    /// When automatic sending may try the entry again.
    let retry: RetrySchedule
    /// When a send of it first started; nil while none has. Once one has, the engine may hold
    /// it, so it is never compacted away.
    let firstAttemptAt: Date?
    /// What the outbox did to the entry's stored values that nobody asked for, oldest first: one
    /// line each, the moment in UTC and a sentence, for example
    /// `2026-05-01T10:00:00Z cleared its upload resources: larger than 16 KiB` (a value it
    /// refused to read, cleared rather than read again on every pass). At most the last 20.
    public let history: [String]

    /// The earliest time an automatic drain sends the entry again, after a transient failure;
    /// nil when it may go at once or waits for the user.
    public var nextAttemptAt: Date? { retry.nextAttemptAt }

    /// Whether automatic retries ran out, so that only `Outbox.sendNow(id:using:)` sends it again.
    public var isWaitingForSendNow: Bool { retry.awaitsSendNow }

    /// The payload decoded as `Payload`, with ISO 8601 dates as `OutboxOperation` encodes them.
    ///
    /// - Parameter type: The payload's type for this entry's `type` and `version`.
    /// - Throws: The decoder's error when the payload is not a `Payload`.
    public func decodedPayload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Payload.self, from: payload)
    }
}

/// Where an entry stands with automatic retries.
struct RetrySchedule: Sendable, Hashable {
    /// Transient failures in a row since the last success, park or "send now".
    var transientFailures = 0
    /// The earliest time an automatic drain may send it; nil when it may go at once.
    var nextAttemptAt: Date?
    /// Whether automatic retries ran out.
    var awaitsSendNow = false
}

/// One file in the outbox's media folder and the attachment it holds.
public struct MediaFile: Sendable, Hashable, Codable {
    /// The attachment's position in its operation (`MediaDescriptor.index`).
    public var index: Int
    /// The file's name inside the media folder; `Outbox.url(of:)` gives its location.
    public var name: String

    /// Creates a reference to a media file.
    public init(index: Int, name: String) {
        self.index = index
        self.name = name
    }
}

/// What a listing can say about a record this version cannot read. It stays on the device
/// (never deleted automatically) until the user discards it or a newer version reads it.
public struct UnreadableEntry: Sendable, Hashable {
    /// The record's place in the capture order.
    public let sequence: Int64
    /// The record's id, or nil when even that cannot be read.
    public let id: String?
    /// Why it cannot be read, in words for the app's UI (never a value from the record).
    public let reason: String

    /// What to call it: its id, or `#SEQUENCE` when it has none (what `blockedBy` names, and
    /// what `Outbox.discard(id:)` takes).
    public var name: String { id ?? "#\(sequence)" }
}

/// Everything in the outbox: the entries this version reads, and beside them those it cannot,
/// so that an app can say "3 entries this app cannot read, still on this device".
public struct OutboxListing: Sendable, Hashable {
    /// The readable entries, in queue order, each with what it waits behind.
    public let entries: [OutboxEntry]
    /// The records this version cannot read, in queue order.
    public let unreadable: [UnreadableEntry]
}

extension OutboxListing {
    /// The listing of records as the store read them, in queue order, each queued entry of a
    /// type that `catalog` keeps off `network` marked as waiting for its network.
    init(records: [StoredRecord], catalog: OperationCatalog, network: NetworkPath) {
        var entries: [OutboxEntry] = []
        var unreadable: [UnreadableEntry] = []
        let blockers = EntityOrder.blockers(in: records)
        for record in records {
            switch record.reading {
            case .success(var entry):
                entry.blockedBy = blockers[record.sequence]
                entry.waitsForNetwork = catalog.awaitedNetwork(of: entry, on: network)
                entries.append(entry)
            case .failure(let problem):
                unreadable.append(UnreadableEntry(sequence: record.sequence, id: record.id, reason: problem.reason))
            }
        }
        self.init(entries: entries, unreadable: unreadable)
    }
}

/// What `Outbox.enqueue` did with an operation. Offering the same id again is a result, not an error.
public enum EnqueueResult: Sendable, Hashable {
    /// The operation is now on disk, files and record, and survives a crash or a power cut.
    case enqueued
    /// An entry with this id was already there; nothing was written.
    case alreadyQueued
    /// The operation is on disk, and it took the place of `earlier`, the last operation of its
    /// entity, of the same last-write-wins type and never sent; that one and its files are gone.
    case replaced(earlier: String)
}
