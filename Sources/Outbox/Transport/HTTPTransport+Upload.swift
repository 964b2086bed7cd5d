import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPTransport {
    /// Sends one upload's bytes: resumably where the engine offers it (`ResumableUpload`), else
    /// as the contract's one `PUT`, within the upload's budget for the pass (`UploadBudget`: at
    /// most twice the file in bodies, whatever the engine answers). A send that finds no room
    /// for a whole copy sends nothing and tells the outbox (`DeliveryReporter.uploadBudgetSpent()`).
    /// How a cut connection is resumed, which resources are kept and given back, and what an
    /// engine that refuses resumption gets: the Outbox catalog's ResumableUploads article.
    /// Whatever the engine answers, the upload has landed only on the contract's confirmation of
    /// the whole file (its SHA-256 and byte count).
    ///
    /// - Returns: nil when the upload landed, else what to return for the send.
    func send(_ upload: UploadInFlight, hasRefreshed: inout Bool) async throws -> TransportResponse? {
        let pass = upload.reporter.pass
        var budget = UploadBudget(
            fileSize: upload.size, spent: passSpending.withLock { $0.spent(by: upload.key, in: pass) })
        guard budget.spent == 0 || budget.allows(upload.size) else {
            await upload.reporter.uploadBudgetSpent()
            return .networkError(
                detail: "upload \(upload.key.index) was sent twice over in this pass already (the engine did not"
                    + " keep it): it waits for the next pass")
        }
        defer {
            let spent = budget.spent
            passSpending.withLock { $0.record(spent, by: upload.key, in: pass) }
        }
        await adoptKeptResource(of: upload)
        var given: URL?
        var lastFailure: TransportResponse?
        if !delegate.isBackground, !isResumptionRefused(in: upload.reporter.pass) {
            switch try await sendResumably(upload, budget: &budget, hasRefreshed: &hasRefreshed) {
            case .landed:
                return nil
            case .failed(let failure, let abandoned):
                if let abandoned { await giveBack(abandoned, network: upload.network, hasRefreshed: &hasRefreshed) }
                return failure
            case .oneRequest(let failure, let abandoned):
                (lastFailure, given) = (failure, abandoned)
            }
        } else if let kept = resource(of: upload.key) {
            // Not used in this pass: given back once the PUT is answered.
            await forgetResource(of: upload.key, reporter: upload.reporter)
            given = kept
        }
        try Task.checkCancellation()
        guard budget.allows(upload.size) else {
            if let given { await giveBack(given, network: upload.network, hasRefreshed: &hasRefreshed) }
            return lastFailure ?? .networkError(detail: "the upload's budget for this send is spent")
        }
        budget.spend(upload.size)
        let request = prepared(
            EngineRequest.upload(upload.upload, of: upload.key.id, engine: upload.engine, timeout: backstop),
            network: upload.network)
        let result = try await exchange(
            request, charged: upload.bytes, to: &budget, hasRefreshed: &hasRefreshed, progress: upload.progress)
        if let given, case .answered = result {
            await giveBack(given, network: upload.network, hasRefreshed: &hasRefreshed)
        }
        return failure(result, of: request, expecting: upload.landed)
    }

    /// The most appends one send makes after its first, each after a cut or a partial append;
    /// after more, the upload waits for the next attempt (and its backoff), where it resumes again.
    static let mostResumptionsPerSend = 32

    /// How a resumable send of one upload ended.
    private enum ResumableOutcome {
        /// The engine confirmed the whole file.
        case landed
        /// The send ends with `failure`; `abandoned` is a resource to give back first.
        case failed(TransportResponse, abandoned: URL?)
        /// The upload goes as the contract's one `PUT` (after `failure`, if any); `abandoned` is
        /// a resource to give back once that is answered.
        case oneRequest(TransportResponse?, abandoned: URL?)
    }

    /// The append that did not land, whose judgement waits for the engine's offset.
    private struct UnfinishedAppend {
        let offset: Int64
        let length: Int64
        let failure: TransportResponse
        /// A 409 (the engine refused it) rather than a lost connection.
        let isRefused: Bool
    }

    /// The resumable part of `send(_:hasRefreshed:)`: where the upload stands (`HEAD` of a
    /// resource held, or `POST` for a new one), then appends, until it lands or must stop.
    private func sendResumably(_ upload: UploadInFlight, budget: inout UploadBudget, hasRefreshed: inout Bool)
        async throws -> ResumableOutcome
    {
        var freshStarts = 1
        var appends = Self.mostResumptionsPerSend + 1
        // The bytes the link carried before its last cut; nil until one.
        var carried: Int64?
        // Where the upload stands when the engine just said so (a creation, a partial append).
        var known: (resource: URL, offset: Int64)?
        // What the send ends with when the budget or the appends run out.
        var lastFailure: TransportResponse?
        var unfinished: UnfinishedAppend? {
            didSet { if let unfinished { lastFailure = unfinished.failure } }
        }
        while true {
            try Task.checkCancellation()
            let resource: URL
            let offset: Int64
            if let standing = known {
                (resource, offset) = standing
                known = nil
            } else if let held = self.resource(of: upload.key) {
                switch try await heldOffset(of: held, for: upload, hasRefreshed: &hasRefreshed) {
                case .at(let at):
                    if let append = unfinished {
                        unfinished = nil
                        guard UploadBudget.isRealProgress(at - append.offset, of: append.length) else {
                            guard append.isRefused else { return .failed(append.failure, abandoned: nil) }
                            // An engine that refuses appends and does not move: no resumable uploads here.
                            refuseResumption(in: upload.reporter.pass)
                            await forgetResource(of: upload.key, reporter: upload.reporter)
                            return .oneRequest(append.failure, abandoned: held)
                        }
                        if !append.isRefused { carried = at - append.offset }
                    }
                    (resource, offset) = (held, at)
                case .complete:
                    // The completing append arrived but its answer was lost: the PUT says what the engine holds.
                    await forgetResource(of: upload.key, reporter: upload.reporter)
                    return .oneRequest(unfinished?.failure, abandoned: nil)
                case .notBelievable:
                    await forgetResource(of: upload.key, reporter: upload.reporter)
                    return .oneRequest(unfinished?.failure, abandoned: held)
                case .gone:
                    await forgetResource(of: upload.key, reporter: upload.reporter)
                    guard freshStarts > 0 else { return .oneRequest(unfinished?.failure, abandoned: nil) }
                    freshStarts -= 1
                    (unfinished, carried) = (nil, nil)
                    continue
                case .failed(let failure):
                    return .failed(failure, abandoned: nil)
                }
            } else {
                switch try await creation(for: upload, hasRefreshed: &hasRefreshed) {
                case .created(let created):
                    known = (created, 0)
                    continue
                case .refused:
                    isCreationRefused.withLock { $0 = true }
                    return .oneRequest(nil, abandoned: nil)
                case .failed(let failure):
                    return .failed(failure, abandoned: nil)
                }
            }

            let length = budget.appendLength(from: offset, carried: carried)
            guard appends > 0, budget.allows(length) else {
                return .failed(
                    lastFailure ?? .networkError(detail: "the upload's budget for this send is spent"), abandoned: nil)
            }
            appends -= 1
            budget.spend(length)
            try Task.checkCancellation()
            let isComplete = offset + length == upload.size
            let request = prepared(
                ResumableUpload.append(at: resource, offset: offset, isComplete: isComplete, timeout: backstop),
                network: upload.network)
            let result = try await exchange(
                request, charged: upload.bytes.subdata(in: Int(offset)..<Int(offset + length)), to: &budget,
                hasRefreshed: &hasRefreshed
            ) { count in upload.progress(offset + count) }
            let failure = failure(result, of: request, expecting: upload.landed)
            if isComplete, failure == nil {
                forgetResource(of: upload.key)
                return .landed
            }
            switch result {
            case .answered(let answer) where (200...299).contains(answer.status):
                if !isComplete, ResumableUpload.isComplete(answer.uploadComplete) == false,
                    ResumableUpload.offset(answer.uploadOffset, within: upload.size) == offset + length
                {
                    known = (resource, offset + length)
                    continue
                }
                // A completing append answered without the contract's confirmation: the resource
                // is not worth asking again (the existing rule); a partial one without its offset: ask.
                guard !isComplete, let failure else {
                    await forgetResource(of: upload.key, reporter: upload.reporter)
                    return .failed(failure ?? .timedOut, abandoned: nil)
                }
                unfinished = UnfinishedAppend(offset: offset, length: length, failure: failure, isRefused: false)
            case .answered(let answer) where answer.status == 409:
                // Refused, perhaps because the offset moved on since it was asked (an append
                // still arriving then): ask again.
                unfinished = UnfinishedAppend(
                    offset: offset, length: length, failure: failure ?? .http(status: 409), isRefused: true)
            case .failed:
                unfinished = UnfinishedAppend(
                    offset: offset, length: length, failure: failure ?? .timedOut, isRefused: false)
            case .unusableURL:
                // Not the network: this resource can never be reached. A new one, once.
                await forgetResource(of: upload.key, reporter: upload.reporter)
                guard freshStarts > 0 else { return .oneRequest(failure, abandoned: nil) }
                freshStarts -= 1
                (unfinished, carried) = (nil, nil)
            case .answered(let answer) where isComplete && answer.status == 422:
                // The contract's answer to the whole file (`upload_conflict`: the engine holds
                // other bytes under the key), which a PUT would get too.
                await forgetResource(of: upload.key, reporter: upload.reporter)
                return .failed(failure ?? .http(status: 422), abandoned: nil)
            case .answered(let answer) where [400, 404, 410].contains(answer.status):
                // Gone (404, 410) or complete (400): the contract's PUT says what the engine holds,
                // and the pass's other sends go as one PUT too, so that an engine that reads every
                // append and then refuses it costs no more than one copy besides each PUT.
                refuseResumption(in: upload.reporter.pass)
                await forgetResource(of: upload.key, reporter: upload.reporter)
                return .oneRequest(failure, abandoned: nil)
            case .answered(let answer) where Self.isRefusal(answer.status):
                refuseResumption(in: upload.reporter.pass)
                await forgetResource(of: upload.key, reporter: upload.reporter)
                return .oneRequest(failure, abandoned: resource)
            default:
                if !Self.keepsResource(after: result) {
                    await forgetResource(of: upload.key, reporter: upload.reporter)
                }
                return .failed(failure ?? .timedOut, abandoned: nil)
            }
        }
    }

    /// `exchange(_:body:hasRefreshed:progress:)` for a body the budget was charged for: the
    /// request's repeat with fresh credentials after a 401 carries the body again, so it is
    /// charged too, and made only when it fits. An engine that reads a body and then answers 401
    /// gets no copy beyond the budget.
    private func exchange(
        _ request: URLRequest, charged body: Data, to budget: inout UploadBudget, hasRefreshed: inout Bool,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> HTTPExchangeResult {
        let mayRepeat = !hasRefreshed && budget.allows(Int64(body.count))
        var hasRefreshedHere = !mayRepeat
        let result = try await exchange(request, body: body, hasRefreshed: &hasRefreshedHere, progress: progress)
        if mayRepeat, hasRefreshedHere {
            budget.spend(Int64(body.count))
            hasRefreshed = true
        }
        return result
    }

    /// Whether a 4xx to a resumable upload's creation or append says that the engine, or a
    /// gateway in front of it, does not take resumable uploads: every 4xx but those about the
    /// credentials, the proxy, the time or the rate (401, 403, 407, 408, 429), which are about
    /// every request alike, and 409, which is about the offset.
    static func isRefusal(_ status: Int) -> Bool {
        (400...499).contains(status) && ![401, 403, 407, 408, 409, 429].contains(status)
    }

    /// What a `HEAD` of a resource held says.
    private enum HeldOffset {
        /// The engine holds this many bytes, and the upload is not complete.
        case at(Int64)
        /// The upload is complete.
        case complete
        /// An answer that cannot be true of this file (an offset beyond it, no `Upload-Complete`).
        case notBelievable
        /// The resource is gone (404, 410), or its URL cannot be requested.
        case gone
        /// The request failed; the send ends with this.
        case failed(TransportResponse)
    }

    /// Asks the engine how much it holds of `resource` (`HEAD`).
    private func heldOffset(of resource: URL, for upload: UploadInFlight, hasRefreshed: inout Bool) async throws
        -> HeldOffset
    {
        try Task.checkCancellation()
        let request = prepared(
            ResumableUpload.offsetRetrieval(at: resource, timeout: backstop), network: upload.network)
        let result = try await exchange(request, body: nil, hasRefreshed: &hasRefreshed)
        switch result {
        case .unusableURL:
            return .gone
        case .answered(let answer) where answer.status == 404 || answer.status == 410:
            return .gone
        case .answered(let answer) where (200...299).contains(answer.status):
            switch ResumableUpload.isComplete(answer.uploadComplete) {
            case true?:
                return .complete
            case false?:
                guard let offset = ResumableUpload.offset(answer.uploadOffset, within: upload.size) else {
                    return .notBelievable
                }
                return .at(offset)
            case nil:
                return .notBelievable
            }
        default:
            return .failed(failure(result, of: request, expecting: upload.landed) ?? .timedOut)
        }
    }

    /// What a resumable upload's creation came to.
    private enum Creation {
        /// A resource of this upload on this engine, holding nothing yet.
        case created(URL)
        /// The engine does not take resumable uploads, or answered without a usable resource.
        case refused
        /// The request failed; the send ends with this.
        case failed(TransportResponse)
    }

    /// Asks the engine for a new upload resource (`POST`, see `ResumableUpload`), and keeps it.
    private func creation(for upload: UploadInFlight, hasRefreshed: inout Bool) async throws -> Creation {
        try Task.checkCancellation()
        let request = prepared(
            ResumableUpload.creation(upload.upload, of: upload.key.id, engine: upload.engine, timeout: backstop),
            network: upload.network)
        let result = try await exchange(request, body: Data(), hasRefreshed: &hasRefreshed)
        guard case .answered(let answer) = result else {
            return .failed(failure(result, of: request, expecting: upload.landed) ?? .timedOut)
        }
        if (200...299).contains(answer.status), ResumableUpload.isComplete(answer.uploadComplete) == false,
            ResumableUpload.offset(answer.uploadOffset, within: upload.size) == 0,
            let resource = ResumableUpload.resource(
                at: answer.location, of: upload.key.id, index: upload.key.index, engine: upload.engine)
        {
            keepResource(resource, of: upload.key)
            await upload.reporter.uploadResourceMade(index: upload.key.index, at: resource)
            return .created(resource)
        }
        // An engine that keeps only the contract (405, or whatever its gateway answers a method
        // it does not know), or an answer that is not a usable resource (a Location elsewhere).
        guard (200...299).contains(answer.status) || Self.isRefusal(answer.status) || answer.status == 501 else {
            return .failed(failure(result, of: request, expecting: upload.landed) ?? .timedOut)
        }
        return .refused
    }
}
