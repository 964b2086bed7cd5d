import Foundation

/// Where an entry stands on its way to the engine, in the words a UI shows: its own state
/// together with what holds it back. This file is the one place that decides it: `status` for
/// one entry, and, inside the package, which entries wait behind which.
public enum EntryStatus: Sendable, Hashable {
    /// Queued, and the next drain sends it.
    case pending
    /// Being sent right now.
    case sending
    /// Queued after a transient failure; automatic drains send it again from `at` on.
    case retrying(at: Date)
    /// Its automatic retries ran out: only `Outbox.sendNow(id:using:)` sends it again.
    case waitingForSendNow
    /// The engine refused it for good, or its file is gone; `reason` says which. It waits for
    /// the user to send it again or to discard it.
    case parked(reason: String)
    /// Queued, and waits until `behind`, an earlier entry of its entity, has reached the engine
    /// or is discarded.
    case blocked(behind: String)
    /// Queued, and waits for a network its type may use (`OperationType.network`): `network`
    /// says which, and `network.awaitedNetwork` says it in words ("Wi-Fi"). No retry is used
    /// up while it waits.
    case waitingForNetwork(NetworkRequirement)
    /// The engine has it; retiring it frees its files.
    case delivered
}

extension OutboxEntry {
    /// Where the entry stands: its state, and for a queued one what it waits for.
    public var status: EntryStatus { status(in: state) }

    /// Where the entry would stand in `state`: for one in flight that does not show as sending yet.
    func status(in state: State) -> EntryStatus {
        switch state {
        case .syncing: return .sending
        case .synced: return .delivered
        case .failedNeedsAttention: return .parked(reason: lastError ?? "the engine refused it")
        case .queued:
            if let blockedBy { return .blocked(behind: blockedBy) }
            if let waitsForNetwork { return .waitingForNetwork(waitsForNetwork) }
            if retry.awaitsSendNow { return .waitingForSendNow }
            if let next = retry.nextAttemptAt { return .retrying(at: next) }
            return .pending
        }
    }
}

/// The rule that delivers the operations of one entity in order: an entry waits behind the
/// earliest entry of its entity, before it in the queue, that the engine does not have yet.
///
/// That one may be queued (and backing off, or waiting for "send now"), being sent, parked, or a
/// record this version cannot read (which is never sent, so what comes after it must wait until
/// the user discards it or a newer version sends it). Only `SYNCED` lets the next one go, and
/// retiring or discarding it does too. Entries without an entity wait for nothing. A record
/// holds back its entity by its entity column whatever its id column holds: one without a valid
/// id is named `#SEQUENCE` (`StoredRecord.name`), as the listing shows it and `discard` takes it.
/// A record whose entity key is not valid takes no part, since no entity can be told from it.
enum EntityOrder {
    /// The name of the record each record waits behind, by the record's sequence number, for
    /// records in queue order.
    static func blockers(in records: [StoredRecord]) -> [Int64: String] {
        var firstUnsettled: [String: String] = [:]
        var blockers: [Int64: String] = [:]
        for record in records {
            guard let entity = record.entity else { continue }
            if let blocker = firstUnsettled[entity] {
                blockers[record.sequence] = blocker
            } else if !record.isSettled {
                firstUnsettled[entity] = record.name
            }
        }
        return blockers
    }
}
