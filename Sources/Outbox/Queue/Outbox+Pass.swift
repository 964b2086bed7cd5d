import Foundation

/// One pass over the queue: which entries it sends, in which order, and what each send's
/// answer does to the entry and to the rest of the pass.
extension Outbox {
    /// One pass over the queue in queue order; see `drain(using:)`.
    ///
    /// - Parameter honorsBackoff: False for a pass someone asked for (`drainNow(using:)`), which
    ///   sends entries that are backing off, after the others.
    func runPass(using transport: any Transport, honorsBackoff: Bool = true) async throws(OutboxError) -> DrainReport {
        var report = DrainReport(passes: 1)
        passQueue = PassQueue(honorsBackoff: honorsBackoff)
        // A store deleted or replaced since it opened: what is sent from here would be from a
        // file nobody else sees any more.
        try store.checkStillInPlace()
        // Nothing of this outbox's own is in flight between passes, so a SYNCING entry found
        // while alone was left by a process that died.
        for id in try store.recoverInterruptedSendsIfAlone() { announceStatus(of: id) }
        // What is refused now would be refused again on every pass: it is cleared, and the
        // entry's history says so.
        try store.clearRefusedValues(at: configuration.now())
        var evidence = PassEvidence()
        // The user's "send now" goes first, even past entries that are backing off.
        var asked: [StoredRecord] = []
        for id in sendNowRequests {
            if let record = try store.record(id: id), record.entry?.state == .queued { asked.append(record) }
        }
        sendNowRequests = []
        for record in asked.sorted(by: { $0.sequence < $1.sequence }) {
            guard let entry = record.entry, try store.blocker(of: record) == nil, !waitsForNetwork(entry, &report)
            else { continue }
            guard try await attempt(entry, using: transport, into: &report, evidence: &evidence) else { return report }
        }
        // The engine's own word on when to come back holds for everything an automatic pass sends.
        if honorsBackoff, let pause = engineAskedToWait, pause.until > configuration.now() {
            report.halt = .waitingToRetry(id: pause.id, until: pause.until)
            report.retryAt = pause.until
            return report
        }
        // The entry passed over because it waits out its backoff, and is due first.
        var firstDue: (id: String, due: Date)?
        // A requested pass sends those after the rest, so that one entry the engine always
        // refuses never keeps the others waiting: a second look at the queue then takes them,
        // and what waited behind them in their entity.
        var tried: Set<Int64> = []
        var isBackingOff = false
        var cursor: Int64 = 0
        while let record = try store.nextQueuedRecord(after: cursor) {
            cursor = record.sequence
            guard let entry = record.entry, try store.blocker(of: record) == nil, !waitsForNetwork(entry, &report)
            else { continue }
            if let due = try dueTime(of: entry), due > configuration.now() {
                if honorsBackoff, due < firstDue?.due ?? .distantFuture { firstDue = (entry.id, due) }
                isBackingOff = true
                continue
            }
            tried.insert(record.sequence)
            guard try await attempt(entry, using: transport, into: &report, evidence: &evidence) else {
                return report
            }
        }
        cursor = 0
        while !honorsBackoff, isBackingOff, let record = try store.nextQueuedRecord(after: cursor) {
            cursor = record.sequence
            guard !tried.contains(record.sequence), let entry = record.entry, try store.blocker(of: record) == nil,
                !waitsForNetwork(entry, &report)
            else { continue }
            tried.insert(record.sequence)
            guard try await attempt(entry, using: transport, into: &report, evidence: &evidence) else {
                return report
            }
        }
        if let firstDue {
            if report.halt == nil { report.halt = .waitingToRetry(id: firstDue.id, until: firstDue.due) }
            report.retryAt = min(report.retryAt ?? firstDue.due, firstDue.due)
        }
        return report
    }

    /// The networks `entry`'s type may use, when the device is on none of them; nil when it may go.
    func awaitedNetwork(of entry: OutboxEntry) -> NetworkRequirement? {
        store.catalog.awaitedNetwork(of: entry, on: scheduling.network)
    }

    /// Whether the pass passes `entry` over because it waits for its network; the report names
    /// it once. It is not claimed, so no attempt or retry is used up, and the later entries of
    /// its entity wait behind it.
    private func waitsForNetwork(_ entry: OutboxEntry, _ report: inout DrainReport) -> Bool {
        guard awaitedNetwork(of: entry) != nil else { return false }
        if passQueue.toldWaiting.insert(entry.id).inserted { report.waitingForNetwork.append(entry.id) }
        return true
    }

    /// When an automatic pass may send the entry. A stored time further away than any backoff
    /// or `Retry-After` could have set (an older version's, or a planted one) is brought forward,
    /// durably, to the longest wait from now: otherwise every pass would wait behind it for ever.
    private func dueTime(of entry: OutboxEntry) throws(OutboxError) -> Date? {
        guard let due = entry.nextAttemptAt else { return nil }
        let latest = configuration.now().addingTimeInterval(configuration.backoff.longestWait)
        guard due > latest else { return due }
        try store.bringForward(id: entry.id, to: latest)
        announceStatus(of: entry.id)
        return latest
    }

    /// Claims, sends and records one entry; parks it without sending when its files cannot be sent.
    ///
    /// - Returns: Whether the pass goes on (false after a transient failure or a cancellation).
    private func attempt(
        _ entry: OutboxEntry, using transport: any Transport, into report: inout DrainReport,
        evidence: inout PassEvidence
    ) async throws(OutboxError) -> Bool {
        guard !Task.isCancelled else {
            report.halt = .cancelled(id: nil)
            return false
        }
        // An entry whose file is gone, or is not what was saved, would fail the same way on
        // every try: it waits for the user instead of holding up the entries behind it.
        if let problem = unsendableReason(entry) {
            if try store.park(id: entry.id, reason: problem) {
                report.parked.append(entry.id)
                announceStatus(of: entry.id)
            }
            return true
        }
        // The claim fails when another process is sending it.
        let statusBefore = entry.status
        guard try store.claim(id: entry.id, at: configuration.now()) else { return true }
        let position = try position(of: entry)
        // `sending` is told once its bytes move (`DeliveryReporter.progress(bytesSent:)`), so
        // that a send that fails at once tells only where the entry stands after it.
        passQueue.inFlight = entry.id
        // Where it stands once the send ends is told here, unless its uploads are sent again,
        // whose own send tells it.
        var isEndToldElsewhere = false
        defer {
            passQueue.inFlight = nil
            let wasShownSending = eventHub.endProgress(id: entry.id)
            if !isEndToldElsewhere { announceSendEnded(entry, unlessStill: wasShownSending ? nil : statusBefore) }
        }
        var response: TransportResponse
        let landedBefore = landedUploads
        switch await handOff(entry, to: transport, position: position) {
        case .answered(let answer):
            response = answer
        case .mediaUnreadable(let reason):
            let reason = "\(Self.fileWording(of: entry, index: nil)) could not be read while it was sent: \(reason)"
            if try store.finishSend(id: entry.id, state: .failedNeedsAttention, lastError: reason) {
                report.parked.append(entry.id)
            }
            return true
        case .cancelled:
            try store.returnUnsent(id: entry.id)
            report.halt = .cancelled(id: entry.id)
            return false
        }
        if case .networkNotAllowed(let path) = response {
            // The system knows the network better than the app said: the entry waits for its
            // own, and what was refused counts as no attempt.
            let network = scheduling.network
            changeNetwork(
                to: NetworkPath(
                    isExpensive: network.isExpensive || path.isExpensive,
                    isConstrained: network.isConstrained || path.isConstrained))
            if waitsForNetwork(entry, &report) {
                try store.returnUnsent(id: entry.id)
                return true
            }
            // A transport that refuses a network the entry's type allows would hold it for ever.
            response = .networkError(detail: Self.reason(for: response))
        }
        let outcome = configuration.classifier.outcome(for: response)
        // A send cut short by the cancellation is no failure of the engine's; one that was
        // delivered before the cancellation counts.
        if outcome != .delivered, Task.isCancelled {
            try store.returnUnsent(id: entry.id)
            report.halt = .cancelled(id: entry.id)
            return false
        }
        let reason = Self.reason(for: response)
        if landedUploads != landedBefore { evidence.engineAnswered() }
        switch response {
        case .http, .uploadsNotHeld: passQueue.hasHeardEngine = true
        default: if landedUploads != landedBefore { passQueue.hasHeardEngine = true }
        }
        if case .uploadsNotHeld(let code, _) = response {
            guard let fresh = try queueUploadsAgain(entry, code: code, reason: reason, into: &report) else {
                return true
            }
            isEndToldElsewhere = true
            // The send again shows as `sending` once its bytes move, as a new one does.
            eventHub.endProgress(id: entry.id)
            announceStatus(of: entry.id)
            return try await attempt(fresh, using: transport, into: &report, evidence: &evidence)
        }
        switch outcome {
        case .delivered:
            engineAskedToWait = nil
            evidence.engineAnswered()
            if try store.finishSend(id: entry.id, state: .synced, lastError: nil) { report.synced.append(entry.id) }
            return true
        case .permanent:
            if try store.finishSend(id: entry.id, state: .failedNeedsAttention, lastError: reason) {
                report.parked.append(entry.id)
            }
            return true
        case .transient:
            let retry = retrySchedule(after: entry, response: response)
            if case .http(_, let header?, _) = response,
                Backoff.retryAfterSeconds(header, now: configuration.now()) != nil,
                let until = retry.nextAttemptAt
            {
                engineAskedToWait = (entry.id, until)
            }
            try store.finishSend(id: entry.id, state: .queued, lastError: reason, retry: retry)
            if let next = retry.nextAttemptAt { report.retryAt = min(report.retryAt ?? next, next) }
            // An upload whose budget for the pass is spent says nothing of the engine or the network.
            guard !passQueue.spentBudgets.contains(entry.id), evidence.stopsThePass(response) else {
                report.retrying.append(entry.id)
                return true
            }
            report.halt = .transientFailure(id: entry.id, reason: reason)
            report.retryAt = retry.nextAttemptAt
            return false
        }
    }

    /// How often in a row an entry's uploads are sent again after the engine answered that it
    /// does not hold them, before the entry is parked: an engine that loses what it just took
    /// would otherwise take the photos for ever.
    static let mostUploadResends = 3

    /// The engine answered the record that it does not hold an upload it was sent, or holds
    /// other bytes (restored from a backup, another node of a cluster): every upload goes back to
    /// pending and the entry is tried again at once, up to `mostUploadResends` times in a row;
    /// after that it is parked with a reason that says so.
    ///
    /// - Returns: The entry, queued again with every upload pending, to send again now; nil when
    ///   it was parked instead, or is no longer being sent (discarded, or marked synced, meanwhile).
    private func queueUploadsAgain(
        _ entry: OutboxEntry, code: String, reason: String, into report: inout DrainReport
    ) throws(OutboxError) -> OutboxEntry? {
        let resends = try store.uploadResends(id: entry.id).incrementedSaturating
        guard resends <= Self.mostUploadResends else {
            let parked =
                "the engine answered \(code) after its uploads were sent again \(Self.mostUploadResends) times:"
                + " it does not keep what it takes (\(reason))"
            if try store.finishSend(id: entry.id, state: .failedNeedsAttention, lastError: parked) {
                report.parked.append(entry.id)
            }
            return nil
        }
        let again = "the engine no longer holds its uploads, which are sent again (\(reason))"
        guard try store.sendUploadsAgain(id: entry.id, resends: resends, lastError: again) else { return nil }
        return try store.record(id: entry.id)?.entry
    }

    /// Why the entry cannot be sent from this device as it is, or nil when it can: a file still to
    /// upload that is missing, is not a regular file, cannot be read, or no longer holds the bytes
    /// its descriptor names; or a descriptor without the checksum the engine checks it by.
    private func unsendableReason(_ entry: OutboxEntry) -> String? {
        for file in entry.pendingMedia {
            let wording = Self.fileWording(of: entry, index: file.index)
            if let problem = store.media.problem(with: file.name) { return "\(wording) \(problem.wording)" }
            guard let descriptor = entry.media.first(where: { $0.index == file.index }) else { continue }
            switch store.media.contents(
                of: file.name, atMost: StoredValue.largestUpload, openedWith: seal(of: entry, file))
            {
            case .failure(let problem):
                return "\(wording) \(problem.wording)"
            case .success(let bytes):
                let sizeDiffers = descriptor.byteCount > 0 && Int64(bytes.count) != descriptor.byteCount
                let digestDiffers = !descriptor.sha256.isEmpty && Cryptography.sha256Hex(of: bytes) != descriptor.sha256
                if sizeDiffers || digestDiffers { return "\(wording) \(MediaProblem.changed.wording)" }
            }
        }
        if let undescribed = entry.media.first(where: { $0.sha256.isEmpty }) {
            return "the record of \(Self.fileWording(of: entry, index: undescribed.index)) lacks its SHA-256,"
                + " and its file is not there to compute it from"
        }
        return nil
    }

    /// "its photo file", "the file of its photo 2 of 3", "its attachment's file", …: the file of
    /// one attachment (or of the one being sent, for `index` nil), in the words of the entry's kind.
    static func fileWording(of entry: OutboxEntry, index: Int?) -> String {
        let kind = entry.type == OperationType.captureCreate.name ? "photo" : "attachment"
        let count = entry.media.count
        guard count > 1, let index else { return "its \(kind) file" }
        return "the file of its \(kind) \(index + 1) of \(count)"
    }

    /// When to try again after a transient failure, or that automatic retries ran out.
    private func retrySchedule(after entry: OutboxEntry, response: TransportResponse) -> RetrySchedule {
        let failures = entry.retry.transientFailures.incrementedSaturating
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

    /// The reason a failed send gives in `lastError` and in the drain report.
    static func reason(for response: TransportResponse) -> String {
        switch response {
        case .http(let status, _, let detail): return "HTTP \(status)" + (detail.map { ": \($0)" } ?? "")
        case .networkError(let detail): return "network error: \(detail)"
        case .timedOut: return "the engine did not answer in time"
        case .notConfirmed(_, let detail): return detail
        case .uploadsNotHeld(let code, let detail): return "HTTP 422 \(code): \(detail)"
        case .networkNotAllowed(let path): return "the system would not send it over a \(path) network"
        }
    }
}
