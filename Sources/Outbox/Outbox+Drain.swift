import Foundation

extension Outbox {
    /// Sends the queue to the engine: one pass, serial, in capture order.
    ///
    /// Each entry is marked `SYNCING` while it is sent. A delivered entry becomes `SYNCED` (call
    /// `retireSynced()` afterwards to free its files); a permanent failure parks that entry as
    /// `FAILED_NEEDS_ATTENTION` with its reason and the pass goes on; a transient failure puts the
    /// entry back in the queue with a backoff (see `Backoff`) and stops the pass, since the next
    /// send would most likely meet the same outage. The pass also stops, without sending, at an
    /// entry that is still backing off: capture order holds, and a struggling engine sees one
    /// request per backoff rather than one per entry. Entries whose automatic retries ran out,
    /// and records this version cannot read, are passed over.
    ///
    /// Drains coalesce: one asked for while a pass runs waits, and all such requests together
    /// cause exactly one more pass afterwards, so a capture saved during a pass is not left
    /// waiting. The caller that started the first pass gets what every pass did; a caller that
    /// waited gets the pass that ran for it.
    ///
    /// - Parameter transport: How to reach the engine (the latest one asked for is used for the extra pass).
    /// - Returns: What the drain sent, parked, and why it stopped early, if it did.
    /// - Throws: `OutboxError` when the store cannot be read or written; a failed send is not an error.
    public func drain(using transport: any Transport) async throws(OutboxError) -> DrainReport {
        try await coalescedDrain(using: transport, isRequested: false)
    }

    /// Sends the queue now because someone asked (the user pulled to refresh, or ran `outbox
    /// drain`): like `drain(using:)`, except that every queued entry is tried at once, whatever
    /// its backoff and even when its automatic retries ran out. Backoff and the retry limit are
    /// there to spare the engine and the battery from automatic passes; a person asking wants
    /// to know now. A transient failure still stops the pass and still counts towards the
    /// entry's backoff for the automatic passes after it. Parked entries stay parked: those
    /// need `sendNow(id:using:)`.
    ///
    /// - Parameter transport: How to reach the engine.
    /// - Returns: What the drain sent, parked, and why it stopped early, if it did.
    /// - Throws: `OutboxError` when the store cannot be read or written; a failed send is not an error.
    public func drainNow(using transport: any Transport) async throws(OutboxError) -> DrainReport {
        try await coalescedDrain(using: transport, isRequested: true)
    }

    /// One drain, coalesced with the others asked for meanwhile; see `drain(using:)`.
    ///
    /// - Parameter isRequested: Whether someone asked for it; one requested drain among those
    ///   waiting makes the one more pass a requested pass.
    private func coalescedDrain(using transport: any Transport, isRequested: Bool) async throws(OutboxError)
        -> DrainReport
    {
        guard !isDraining else {
            followUpTransport = transport
            followUpIsRequested = followUpIsRequested || isRequested
            return try await withCheckedContinuation { followUpWaiters.append($0) }.get()
        }
        isDraining = true
        defer { isDraining = false }
        var combined = DrainReport()
        var current = transport
        var currentIsRequested = isRequested
        var waiters: [CheckedContinuation<Result<DrainReport, OutboxError>, Never>] = []
        while true {
            let result: Result<DrainReport, OutboxError>
            do throws(OutboxError) {
                result = .success(try await runPass(using: current, honoursBackoff: !currentIsRequested))
            } catch {
                result = .failure(error)
            }
            for waiter in waiters { waiter.resume(returning: result) }
            switch result {
            case .success(let report):
                combined.append(report)
            case .failure(let error):
                // Nobody may be left waiting for a pass that will not come.
                for waiter in followUpWaiters { waiter.resume(returning: result) }
                followUpWaiters = []
                followUpTransport = nil
                followUpIsRequested = false
                throw error
            }
            guard let next = followUpTransport else { return combined }
            current = next
            currentIsRequested = followUpIsRequested
            followUpTransport = nil
            followUpIsRequested = false
            waiters = followUpWaiters
            followUpWaiters = []
        }
    }

    /// Sends one entry now, ahead of the queue and of its backoff: for the user's "Send now" on
    /// an entry whose automatic retries ran out, or on a parked one. Then the rest of the queue
    /// drains as usual (in the same coalesced way as `drain(using:)`).
    ///
    /// The entry's last error stays readable until this send ends.
    ///
    /// - Parameters:
    ///   - id: The entry's id.
    ///   - transport: How to reach the engine.
    /// - Returns: What the drain did.
    /// - Throws: `notFound`, `unreadableEntry`, or `OutboxError` when the store fails.
    public func sendNow(id: String, using transport: any Transport) async throws(OutboxError) -> DrainReport {
        _ = try store.entry(id: id)
        try store.releaseForSendNow(id: id)
        sendNowRequests.insert(id)
        return try await drain(using: transport)
    }

    /// One pass over the queue in capture order; see `drain(using:)`.
    ///
    /// - Parameter honoursBackoff: False for a pass someone asked for (`drainNow(using:)`), which
    ///   sends entries that are backing off or whose automatic retries ran out.
    func runPass(using transport: any Transport, honoursBackoff: Bool = true) async throws(OutboxError) -> DrainReport {
        var report = DrainReport(passes: 1)
        // Nothing of this outbox's own is in flight between passes, so a SYNCING entry found
        // while alone was left by a process that died.
        _ = try store.recoverInterruptedSendsIfAlone()
        // The user's "send now" goes first, even past entries that are backing off.
        var asked: [OutboxEntry] = []
        for id in sendNowRequests {
            if let entry = try store.record(id: id)?.entry, entry.state == .queued { asked.append(entry) }
        }
        sendNowRequests = []
        for entry in asked.sorted(by: { $0.sequence < $1.sequence }) {
            guard try await attempt(entry, using: transport, into: &report) else { return report }
        }
        var cursor: Int64 = 0
        while let record = try store.nextQueuedRecord(after: cursor, includingThoseAwaitingSendNow: !honoursBackoff) {
            cursor = record.sequence
            guard let entry = record.entry else { continue }
            if honoursBackoff, let due = entry.nextAttemptAt, due > configuration.now() {
                report.halt = .waitingToRetry(id: entry.id, until: due)
                report.retryAt = due
                return report
            }
            guard try await attempt(entry, using: transport, into: &report) else { return report }
        }
        return report
    }

    /// Claims, sends and records one entry.
    ///
    /// - Returns: Whether the pass goes on (false after a transient failure).
    private func attempt(
        _ entry: OutboxEntry, using transport: any Transport, into report: inout DrainReport
    ) async throws(OutboxError) -> Bool {
        // The claim fails when another process is sending it.
        guard try store.claim(id: entry.id) else { return true }
        let response = await handOff(entry, to: transport)
        let reason = Self.reason(for: response)
        switch configuration.classifier.outcome(for: response) {
        case .delivered:
            if try store.finishSend(id: entry.id, state: .synced, lastError: nil) { report.synced.append(entry.id) }
            return true
        case .permanent:
            if try store.finishSend(id: entry.id, state: .failedNeedsAttention, lastError: reason) {
                report.parked.append(entry.id)
            }
            return true
        case .transient:
            let retry = retrySchedule(after: entry, response: response)
            try store.finishSend(id: entry.id, state: .queued, lastError: reason, retry: retry)
            report.halt = .transientFailure(id: entry.id, reason: reason)
            report.retryAt = retry.nextAttemptAt
            return false
        }
    }

    /// When to try again after a transient failure, or that automatic retries ran out.
    private func retrySchedule(after entry: OutboxEntry, response: TransportResponse) -> RetrySchedule {
        let failures = entry.retry.transientFailures + 1
        let backoff = configuration.backoff
        guard failures <= backoff.automaticRetryLimit else {
            return RetrySchedule(transientFailures: failures, nextAttemptAt: nil, awaitsSendNow: true)
        }
        let now = configuration.now()
        var retryAfter: TimeInterval?
        if case .http(_, let header?, _) = response { retryAfter = Backoff.retryAfterSeconds(header, now: now) }
        let delay = backoff.delay(
            afterFailures: failures, retryAfter: retryAfter, randomUnit: configuration.randomUnit())
        return RetrySchedule(transientFailures: failures, nextAttemptAt: now.addingTimeInterval(delay))
    }

    /// Hands one claimed entry to the transport; the actor is free while it runs.
    private func handOff(_ entry: OutboxEntry, to transport: any Transport) async -> TransportResponse {
        let sizes = Dictionary(
            entry.ownedMedia.map { ($0.index, Self.byteCount(of: url(of: $0))) },
            uniquingKeysWith: { first, _ in first })
        let pending = entry.pendingMedia.sorted { $0.index < $1.index }.map { file in
            PendingUpload(
                index: file.index, fileURL: url(of: file),
                byteCount: sizes[file.index] ?? Self.byteCount(of: url(of: file)))
        }
        let totalBytes = sizes.values.reduce(0, +)
        let delivery = Delivery(
            id: entry.id, intent: entry.intent, attempt: entry.attempts + 1, pendingUploads: pending,
            totalBytes: totalBytes, landedBytes: max(0, totalBytes - pending.reduce(0) { $0 + $1.byteCount }))
        let reporter = DeliveryReporter(
            id: entry.id, totalBytes: totalBytes, outbox: self, onProgress: configuration.onProgress)
        do {
            return try await transport.send(delivery, reporter: reporter)
        } catch {
            return .networkError(detail: String(describing: error))
        }
    }

    /// Removes a landed upload from the entry's pending media; see `DeliveryReporter.uploadLanded(index:)`.
    func recordUploadLanded(index: Int, id: String) throws(OutboxError) {
        try store.removePending(index: index, id: id)
    }

    /// The reason a failed send gives in `lastError` and in the drain report.
    static func reason(for response: TransportResponse) -> String {
        switch response {
        case .http(let status, _, let detail): return "HTTP \(status)" + (detail.map { ": \($0)" } ?? "")
        case .networkError(let detail): return "network error: \(detail)"
        case .timedOut: return "the engine did not answer in time"
        }
    }

    private static func byteCount(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
