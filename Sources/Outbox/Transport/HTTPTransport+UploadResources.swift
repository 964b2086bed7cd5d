import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The upload resources a resumable upload leaves at the engine: the one kept for each upload's
/// next attempt (at most `mostKeptResources`, here and in the outbox's store), and giving back
/// those the client will not use again (`DELETE`).
extension HTTPTransport {
    /// Gives back a resource the client will not use again (`DELETE`), best effort: an engine
    /// that does not answer keeps it until it expires.
    func giveBack(_ resource: URL, network: NetworkRequirement, hasRefreshed: inout Bool) async {
        guard !Task.isCancelled else { return }
        let request = prepared(ResumableUpload.cancellation(at: resource, timeout: backstop), network: network)
        _ = try? await exchange(request, body: nil, hasRefreshed: &hasRefreshed)
    }

    /// Gives back the resources the outbox will not use again (`Transport.giveBack(_:)`): each one
    /// that is its upload's on this engine is `DELETE`d, in order, up to the first the engine
    /// does not answer for (it would not answer the next either); any other is dropped unasked.
    ///
    /// - Returns: The one the engine did not answer for and those after it, to be given back later.
    public func giveBack(_ resources: [AbandonedUploadResource]) async -> [AbandonedUploadResource] {
        guard let engine = engineURL else { return resources }
        var hasRefreshed = false
        for (position, abandoned) in resources.enumerated() {
            guard !Task.isCancelled else { return Array(resources[position...]) }
            guard
                let resource = ResumableUpload.resource(
                    at: abandoned.resource, of: abandoned.id, index: abandoned.index, engine: engine)
            else { continue }
            let request = prepared(
                ResumableUpload.cancellation(at: resource, timeout: backstop), network: .any)
            guard case .answered? = try? await exchange(request, body: nil, hasRefreshed: &hasRefreshed) else {
                return Array(resources[position...])
            }
        }
        return []
    }

    /// Follows the resource the store kept for this upload, from an earlier process, when the
    /// transport holds none: only when it is this upload's on this engine. Any other is refused,
    /// and cleared from the store with a line in the entry's history.
    func adoptKeptResource(of upload: UploadInFlight) async {
        guard resource(of: upload.key) == nil, let kept = upload.upload.keptUploadResource else { return }
        if let resource = ResumableUpload.resource(
            at: kept, of: upload.key.id, index: upload.key.index, engine: upload.engine)
        {
            keepResource(resource, of: upload.key)
        } else {
            await upload.reporter.uploadResourceRefused(index: upload.key.index)
        }
    }

    /// Whether the engine refused a resumable upload's creation, or refused appends in this pass.
    func isResumptionRefused(in pass: UUID) -> Bool {
        isCreationRefused.withLock { $0 } || passWithoutResumption.withLock { $0 == pass }
    }

    /// Remembers for the rest of the pass that the engine refuses appends, so that the pass's
    /// other uploads go as one `PUT` each, without asking again; the next pass asks again.
    func refuseResumption(in pass: UUID) {
        passWithoutResumption.withLock { $0 = pass }
    }

    /// The resource held for `key`'s upload, if any.
    func resource(of key: UploadKey) -> URL? {
        uploadResources.withLock { $0[key] }
    }

    /// Keeps `resource` for the next attempt at `key`'s upload. At most `mostKeptResources` are
    /// kept: uploads that never land (parked, discarded) would otherwise add one each for the
    /// transport's life; one let go costs only a fresh start of its upload.
    func keepResource(_ resource: URL, of key: UploadKey) {
        uploadResources.withLock { resources in
            if resources[key] == nil, resources.count >= Self.mostKeptResources, let any = resources.keys.first {
                resources.removeValue(forKey: any)
            }
            resources[key] = resource
        }
    }

    static let mostKeptResources = 256

    func forgetResource(of key: UploadKey) {
        _ = uploadResources.withLock { $0.removeValue(forKey: key) }
    }

    /// Forgets a resource that is gone, complete, refused or not believable, here and in the
    /// store, so that no later send, in this process or another, asks for it again.
    func forgetResource(of key: UploadKey, reporter: DeliveryReporter) async {
        forgetResource(of: key)
        await reporter.uploadResourceDropped(index: key.index)
    }

    /// Whether an append that did not land leaves its resource worth asking again: after a
    /// timeout or a transient status, the engine still holds what came.
    static func keepsResource(after result: HTTPExchangeResult) -> Bool {
        switch result {
        case .timedOut, .failed, .networkNotAllowed: return true
        case .unusableURL: return false
        case .answered(let answer):
            return [401, 403, 407, 408, 425, 429].contains(answer.status) || answer.status >= 500
        case .oversized(let status, _), .encoded(let status, _, _): return status >= 500
        }
    }
}
