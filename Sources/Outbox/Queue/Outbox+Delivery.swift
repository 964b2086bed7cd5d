import Foundation

/// Handing one claimed entry to the transport: the `Delivery` it sends, the `DeliveryReporter`
/// its progress goes through, and its place among those the pass sends.
extension Outbox {
    /// Where the pass in flight is: how many entries it started, of how many it may send, and
    /// which it passed over for their network.
    struct PassQueue {
        /// Whether the pass keeps to backoff (an automatic one), so does not count what backs off.
        var honorsBackoff = true
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
    func position(of entry: OutboxEntry) throws(OutboxError) -> QueuePosition {
        if let last = passQueue.last, last.id == entry.id { return last.position }
        passQueue.started = passQueue.started.incrementedSaturating
        if passQueue.planned == nil {
            let now = configuration.now()
            let honorsBackoff = passQueue.honorsBackoff
            let waiting = try list().entries.count {
                $0.state == .queued && !$0.isWaitingForSendNow && $0.waitsForNetwork == nil
                    && (!honorsBackoff || ($0.nextAttemptAt ?? .distantPast) <= now)
            }
            passQueue.planned = passQueue.started + waiting
        }
        let position = QueuePosition(
            number: passQueue.started, count: max(passQueue.started, passQueue.planned ?? passQueue.started))
        passQueue.last = (entry.id, position)
        return position
    }

    /// How a hand-off ended.
    enum HandOff {
        /// The transport came back with an answer (or the lack of one).
        case answered(TransportResponse)
        /// A file to upload could not be read as it was sent; the reason says why.
        case mediaUnreadable(String)
        /// The drain's task was cancelled and the transport stopped.
        case cancelled
    }

    /// Hands one claimed entry to the transport; the actor is free while it runs.
    func handOff(_ entry: OutboxEntry, to transport: any Transport, position: QueuePosition) async
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
        } catch OutboxError.media(.read(_, let cause)) {
            return .mediaUnreadable(cause.description)
        } catch {
            return Task.isCancelled ? .cancelled : .answered(.networkError(detail: String(describing: error)))
        }
    }

    /// What opens the file of one of the entry's attachments, when the outbox is encrypted.
    func seal(of entry: OutboxEntry, _ file: MediaFile) -> MediaSeal? {
        store.cipher.map { MediaSeal(cipher: $0, id: entry.id, index: file.index) }
    }

    /// The size of an attachment's bytes: its file's, or for a sealed file the plaintext's.
    private static func byteCount(of url: URL, isSealed: Bool) -> Int64 {
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
        guard isSealed else { return size }
        return Int64(StoreCipher.plaintextSize(ofSealedFileSize: Int(clamping: size)) ?? 0)
    }
}
