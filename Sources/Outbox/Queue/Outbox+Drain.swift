import Foundation

extension Outbox {
    /// Sends the queue to the engine: one automatic pass, serial, in queue order, as the
    /// scheduler runs it, keeping to each entry's ``Backoff``.
    ///
    /// A delivered entry becomes `.synced` (``retireSynced()`` then frees its files); one the
    /// engine refuses for good is parked and the pass goes on; a failure that says the engine or
    /// the network is down stops the pass. An entry waits behind an earlier one of its entity.
    /// A drain asked for while a pass runs shares one more pass with the others, and cancelling
    /// the task puts the entry in flight back unsent. <doc:Draining> tells it all.
    ///
    /// - Parameter transport: How to reach the engine (the latest one asked for is used for the extra pass).
    /// - Returns: What the drain sent, parked, and why it stopped early, if it did.
    /// - Throws: `CancellationError` when the calling task is cancelled; `OutboxError` when the
    ///   store cannot be read or written. A failed send is not an error.
    public func drain(using transport: any Transport) async throws -> DrainReport {
        try await coalescedDrain(using: transport, isRequested: false)
    }

    /// Sends the queue now because someone asked (the user pulled to refresh, or ran `outbox
    /// drain`): like ``drain(using:)``, except that entries still backing off are tried too,
    /// after all those that are not. Backoff spares the engine and the battery from automatic
    /// passes; a person asking wants to know now. Parked entries, and those whose automatic
    /// retries ran out, need ``sendNow(id:using:)``. How passes coalesce and cancel: <doc:Draining>.
    ///
    /// - Parameter transport: How to reach the engine.
    /// - Returns: What the drain sent, parked, and why it stopped early, if it did.
    /// - Throws: `CancellationError` when the calling task is cancelled; `OutboxError` when the
    ///   store cannot be read or written. A failed send is not an error.
    public func drainNow(using transport: any Transport) async throws -> DrainReport {
        try await coalescedDrain(using: transport, isRequested: true)
    }

    /// Sends one entry now, ahead of the queue and of its backoff: for the user's "Send now" on
    /// an entry whose automatic retries ran out, or on a parked one. Then the rest of the queue
    /// drains as usual (in the same coalesced way as `drain(using:)`), the entries of its entity
    /// that waited behind it included. It never jumps the order of its entity.
    ///
    /// The entry's last error stays readable until this send ends.
    ///
    /// - Parameters:
    ///   - id: The entry's id.
    ///   - transport: How to reach the engine.
    /// - Returns: What the drain did.
    /// - Throws: `notFound`, `unreadableEntry`, `blockedBehind` when an earlier entry of its
    ///   entity must go first, or `OutboxError` when the store fails; `CancellationError` when
    ///   the calling task is cancelled, as for `drain(using:)`.
    public func sendNow(id: String, using transport: any Transport) async throws -> DrainReport {
        let entry = try store.entry(id: id)
        if let blocker = entry.blockedBy, let entity = entry.entity {
            throw OutboxError.blockedBehind(id: id, blockedBy: blocker, entity: entity)
        }
        if let awaited = awaitedNetwork(of: entry) {
            throw OutboxError.waitsForNetwork(
                id: id, type: entry.type, network: scheduling.network, awaited: awaited.awaitedNetwork)
        }
        try store.releaseForSendNow(id: id)
        announceStatus(of: id, unlessStill: entry.status)
        sendNowRequests.insert(id)
        return try await drain(using: transport)
    }

    /// One pass over the queue in queue order; see `drain(using:)`.
    ///
    /// - Parameter honoursBackoff: False for a pass someone asked for (`drainNow(using:)`), which
    ///   sends entries that are backing off, after the others.
    func runPass(using transport: any Transport, honoursBackoff: Bool = true) async throws(OutboxError) -> DrainReport {
        var report = DrainReport(passes: 1)
        passQueue = PassQueue(honoursBackoff: honoursBackoff)
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
        if honoursBackoff, let pause = engineAskedToWait, pause.until > configuration.now() {
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
                if honoursBackoff, due < firstDue?.due ?? .distantFuture { firstDue = (entry.id, due) }
                isBackingOff = true
                continue
            }
            tried.insert(record.sequence)
            guard try await attempt(entry, using: transport, into: &report, evidence: &evidence) else {
                return report
            }
        }
        cursor = 0
        while !honoursBackoff, isBackingOff, let record = try store.nextQueuedRecord(after: cursor) {
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

    /// What a pass has seen of the engine, to tell a failure of the engine's from one entry's.
    ///
    /// Failures that say so stop the pass: no connection, a timeout, 429, 502, 503, 504, any
    /// answer with a `Retry-After`, 401, 403, 407 and 408 (credentials and the path are the same
    /// for every entry), and successes that are not the engine's answer or statuses the contract
    /// never gives (a portal or a proxy answers). A 409 is about this entry's key. A 500 (or
    /// another 5xx) alone cannot say which it is: it is taken as this entry's when nothing else
    /// failed so since the engine last confirmed anything, and two in a row with no
    /// confirmation between them (a delivery, or an upload that landed) stop the pass. So one
    /// entry the engine always fails costs one request per pass, while an engine failing every
    /// request costs two.
    struct PassEvidence {
        /// The 5xx failures since the engine last confirmed a send in this pass.
        private var unexplainedFailures = 0

        /// The engine confirmed something: a delivery or an upload.
        mutating func engineAnswered() { unexplainedFailures = 0 }

        /// Whether a transient `response` stops the pass; counts it when it might be the entry's.
        mutating func stopsThePass(_ response: TransportResponse) -> Bool {
            guard case .http(let status, let retryAfter, _) = response else { return true }
            if let retryAfter, Backoff.retryAfterSeconds(retryAfter, now: Date()) != nil { return true }
            switch status {
            case 409, 425: return false
            case 429, 502, 503, 504: return true
            case 500...599:
                unexplainedFailures += 1
                return unexplainedFailures >= 2
            default: return true
            }
        }
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

    /// What opens the file of one of the entry's attachments, when the outbox is encrypted.
    private func seal(of entry: OutboxEntry, _ file: MediaFile) -> MediaSeal? {
        store.cipher.map { MediaSeal(cipher: $0, id: entry.id, index: file.index) }
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

    /// How a hand-off ended.
    private enum HandOff {
        /// The transport came back with an answer (or the lack of one).
        case answered(TransportResponse)
        /// A file to upload could not be read as it was sent; the reason says why.
        case mediaUnreadable(String)
        /// The drain's task was cancelled and the transport stopped.
        case cancelled
    }

    /// Where the pass in flight is: how many entries it started, of how many it may send, and
    /// which it passed over for their network.
    struct PassQueue {
        /// Whether the pass keeps to backoff (an automatic one), so does not count what backs off.
        var honoursBackoff = true
        /// The entries it started.
        var started = 0
        /// Those, and the ones it could still send when it started its first.
        var planned: Int?
        /// The last entry started and its position: its uploads sent again keep it.
        var last: (id: String, position: QueuePosition)?
        /// The entries the report names as waiting for their network, each once.
        var toldWaiting: Set<String> = []
        /// The entry being sent, whose send tells where it stands when it ends.
        var inFlight: String?
        /// Which pass it is, for what a transport learns of the engine in one pass
        /// (`DeliveryReporter.pass`).
        let pass = UUID()
        /// Whether the engine answered a send of this pass (its status, a landed upload), so
        /// that the upload resources to give back can be.
        var hasHeardEngine = false
        /// The entries with an upload whose budget for the pass is spent
        /// (`DeliveryReporter.uploadBudgetSpent()`).
        var spentBudgets: Set<String> = []
    }

    /// The place of the entry just claimed in the pass: the next number, of those the pass
    /// started and those it may still send, counted at its first claim.
    private func position(of entry: OutboxEntry) throws(OutboxError) -> QueuePosition {
        if let last = passQueue.last, last.id == entry.id { return last.position }
        passQueue.started = passQueue.started.incrementedSaturating
        if passQueue.planned == nil {
            let now = configuration.now()
            let honoursBackoff = passQueue.honoursBackoff
            let waiting = try list().entries.count {
                $0.state == .queued && !$0.isWaitingForSendNow && $0.waitsForNetwork == nil
                    && (!honoursBackoff || ($0.nextAttemptAt ?? .distantPast) <= now)
            }
            passQueue.planned = passQueue.started + waiting
        }
        let position = QueuePosition(
            number: passQueue.started, count: max(passQueue.started, passQueue.planned ?? passQueue.started))
        passQueue.last = (entry.id, position)
        return position
    }

    /// Hands one claimed entry to the transport; the actor is free while it runs.
    private func handOff(_ entry: OutboxEntry, to transport: any Transport, position: QueuePosition) async
        -> HandOff
    {
        let isSealed = store.cipher != nil
        let sizes = Dictionary(
            entry.ownedMedia.map { ($0.index, Self.byteCount(of: url(of: $0), isSealed: isSealed)) },
            uniquingKeysWith: { first, _ in first })
        let resources = entry.pendingMedia.isEmpty ? [:] : store.uploadResources(id: entry.id)
        let pending = entry.pendingMedia.sorted { $0.index < $1.index }.map { file in
            PendingUpload(
                index: file.index, fileURL: url(of: file),
                byteCount: sizes[file.index] ?? Self.byteCount(of: url(of: file), isSealed: isSealed),
                contentType: entry.media.first { $0.index == file.index }?.contentType ?? "image/jpeg",
                keptUploadResource: resources[file.index], seal: seal(of: entry, file))
        }
        // Sizes come from files on disk, so they cannot add up past Int64; the clamp is for a
        // file that changed between the two looks.
        let totalBytes = sizes.values.reduce(0) { $0.addingReportingOverflow($1).overflow ? .max : $0 + $1 }
        let pendingBytes = pending.reduce(0) {
            $0.addingReportingOverflow($1.byteCount).overflow ? .max : $0 + $1.byteCount
        }
        let delivery = Delivery(
            id: entry.id, entity: entry.entity, type: entry.type, version: entry.version, payload: entry.payload,
            media: entry.media, attempt: entry.attempts.incrementedSaturating, pendingUploads: pending,
            totalBytes: totalBytes, landedBytes: max(0, totalBytes - pendingBytes),
            network: store.catalog.network(ofType: entry.type))
        let reporter = DeliveryReporter(
            id: entry.id, totalBytes: totalBytes, position: position, startBytes: delivery.landedBytes, outbox: self,
            onProgress: configuration.onProgress, pass: passQueue.pass)
        do {
            return .answered(try await transport.send(delivery, reporter: reporter))
        } catch is CancellationError {
            return .cancelled
        } catch OutboxError.mediaRead(_, let reason) {
            return .mediaUnreadable(reason)
        } catch {
            return Task.isCancelled ? .cancelled : .answered(.networkError(detail: String(describing: error)))
        }
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

    /// The size of an attachment's bytes: its file's, or for a sealed file the plaintext's.
    private static func byteCount(of url: URL, isSealed: Bool) -> Int64 {
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
        guard isSealed else { return size }
        return Int64(StoreCipher.plaintextSize(ofSealedFileSize: Int(clamping: size)) ?? 0)
    }
}
