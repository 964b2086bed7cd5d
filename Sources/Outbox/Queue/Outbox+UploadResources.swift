import Foundation

/// The upload resources an engine made for an entry's files: kept for its next send, given back
/// when abandoned (one short deadline a pass), and what each upload's sends have cost.
extension Outbox {
    /// Keeps an upload resource for the entry's next send, or drops it (nil); see
    /// `DeliveryReporter.uploadResourceMade(index:at:)`.
    func recordUploadResource(_ resource: String?, index: Int, id: String) {
        try? store.setUploadResource(resource, index: index, id: id)
    }

    /// Clears a kept upload resource the transport refused, with a line in the entry's history;
    /// see `DeliveryReporter.uploadResourceRefused(index:)`.
    func recordRefusedUploadResource(index: Int, id: String) {
        try? store.refuseUploadResource(index: index, id: id, at: configuration.now())
    }

    /// Asks the transport to give back the upload resources the outbox will not use again,
    /// after a pass in which the engine answered: row by row, oldest first, all within one
    /// deadline (`Configuration.giveBackDeadline`, 5 seconds), and no further than the first row not given back, since an
    /// engine that does not answer one `DELETE` will not answer the next. What was not given back
    /// waits for a later pass; a row left unanswered in `mostUnansweredGiveBacks` passes is
    /// forgotten. Best effort: a resource not given back costs the engine a file until it
    /// expires it (docs/engine-protocol.md), and an engine that never answers costs a pass the
    /// deadline at most, not the idle timeout of every request.
    func giveBackAbandonedResources(using transport: any Transport) async {
        guard passQueue.hasHeardEngine,
            let rows = try? store.abandonedUploadResources(limit: Self.mostResourcesGivenBackPerPass), !rows.isEmpty
        else { return }
        let deadline = ContinuousClock.now + configuration.giveBackDeadline
        for row in rows {
            guard !Task.isCancelled, ContinuousClock.now < deadline else { return }
            let left = await Self.giveBack(row.resources, using: transport, before: deadline)
            guard !left.isEmpty else {
                try? store.forgetAbandonedUploadResources(rows: [row.row])
                continue
            }
            // A drain cancelled meanwhile did not hear the engine fail to answer.
            if !Task.isCancelled {
                try? store.countUnansweredGiveBack(row: row.row, forgettingAfter: Self.mostUnansweredGiveBacks)
            }
            return
        }
    }

    /// `transport.giveBack(resources)`, cancelled at `deadline`: then none counts as given back.
    private static func giveBack(
        _ resources: [AbandonedUploadResource], using transport: any Transport, before deadline: ContinuousClock.Instant
    ) async -> [AbandonedUploadResource] {
        await withTaskGroup(of: [AbandonedUploadResource]?.self) { group in
            group.addTask { await transport.giveBack(resources) }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? resources
        }
    }

    /// The most rows of resources one pass gives back.
    static let mostResourcesGivenBackPerPass = 16

    /// In how many passes a row of resources may go unanswered before it is forgotten.
    static let mostUnansweredGiveBacks = 3

    /// Notes that an upload of the entry has spent its budget for the pass; see
    /// `DeliveryReporter.uploadBudgetSpent()`.
    func recordUploadBudgetSpent(id: String) {
        passQueue.spentBudgets.insert(id)
    }

    /// Removes a landed upload from the entry's pending media; see `DeliveryReporter.uploadLanded(index:)`.
    func recordUploadLanded(index: Int, id: String) throws(OutboxError) {
        try store.removePending(index: index, id: id)
        landedUploads &+= 1
    }
}
