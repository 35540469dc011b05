import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The engine's side of the HTTP cache (`SessionPlugins.responseCache`, which decides before a task
/// starts): answering a task from the cache without a transfer, and storing or invalidating after one.
extension SessionEngine {
    /// Completes `task` with `stored`, as a transfer would have (response hook, data hook, progress,
    /// completion), without touching the network. Its metrics say `.localCache`.
    func answerFromCache(_ task: SessionTask, with stored: CachedAnswer) {
        guard let events else { return }
        confinement.assertOnOwner("answering from the cache")
        let url = task.requestURL ?? stored.response.url
        let length = Int64(stored.data.count)
        task.updateStorage { state in
            state.responseHead = ResponseHead(response: stored.response)
            state.countOfBytesExpectedToReceive = length
        }
        var answering = task
        var data: Data? = stored.data
        var file: URL?
        if task.leanDelivery == nil {
            switch events.transferDidReceiveResponse(task, statusCode: stored.response.statusCode) {
            case .allow:
                if events.wantsReceivedData, !stored.data.isEmpty { events.transfer(task, didReceive: stored.data) }
                if !events.keepsReceivedBody { data = nil }
            case .cancel:
                finishWithoutTransfer(task, error: cancellationError(of: task, url: url))
                return
            case .becomeDownload(let download):
                answering = download
                data = nil
                var sink = DownloadFileSink()
                do {
                    _ = try sink.open(resuming: nil, failingURL: url)
                    let written = stored.data.withUnsafeBytes { sink.write($0) }
                    sink.close()
                    guard written else { throw CurlErrorMapping.error(.cannotWriteToFile, url: url) }
                    file = sink.url
                } catch {
                    if let path = sink.url?.path { unlink(path) }
                    finishWithoutTransfer(download, error: error)
                    return
                }
            }
            answering.updateStorage { $0.countOfBytesReceived = length }
            events.transferDidUpdateProgress(answering, bytesSentDelta: 0, bytesWrittenDelta: length)
        } else {
            answering.updateStorage { $0.countOfBytesReceived = length }
        }
        let now = Date()
        let metrics = SessionTaskMetrics(
            taskInterval: DateInterval(start: now, end: now), redirectCount: 0, domainLookupDuration: 0,
            connectDuration: 0, secureConnectionDuration: 0, timeToFirstByte: 0, totalDuration: 0,
            networkProtocolName: nil, isReusedConnection: false, countOfRequestBodyBytesSent: 0,
            countOfResponseBytesReceived: 0, resourceFetchType: .localCache)
        answering.updateStorage { state in
            state.state = .completed
            state.error = nil
            state.metrics = metrics
        }
        finishedTransfers.append(FinishedTransfer(task: answering, outcome: TransferOutcome(
            data: data, temporaryFile: file, metrics: metrics)))
    }

    /// After `transfer` ended well: stores its response when the cache's rules allow (through the
    /// session's `willCacheResponse` answer), or removes what an unsafe method changed.
    func updateCache(after transfer: Transfer, body: Data?) {
        let task = transfer.task
        guard let cache = settings.cache, let events, let head = task.updateStorage({ $0.responseHead }) else { return }
        let url: URL
        let method: String
        if let plain = task.fieldRequest {
            (url, method) = (plain.url, plain.method)
        } else {
            guard let request = task.originalRequest, let requestURL = request.url else { return }
            (url, method) = (requestURL, (request.httpMethod ?? "GET").uppercased())
        }
        // Most answers change nothing: decided from the header lines, as an HTTPURLResponse costs more
        // than the rest of a small request's work on this thread.
        let effect = cache.effect(ofMethod: method, statusCode: head.statusCode, field: head.value(named:))
        let stores = body != nil && CacheConsultation.takesPart(task) && (effect == .mayStore || transfer.cacheAnswer != nil)
        guard effect == .invalidate || stores, let response = head.response else { return }
        if effect == .invalidate {
            cache.invalidate(url, after: response)
            return
        }
        guard let body, let request = CacheConsultation.request(of: task, current: false) else { return }
        var trust: CacheTrustRecord?
        if url.scheme?.lowercased() == "https" {
            // Stored only with a record of the handshake it was fetched under.
            guard let tls = transfer.attemptTLS, !tls.asksForIdentityPerChallenge,
                  !transfer.recordsPeerChain || transfer.peerChain != nil else { return }
            trust = CacheTrustRecord(policyEvaluatedChain: transfer.recordsPeerChain ? transfer.peerChain : nil,
                                     tlsMinimum: tls.minimum, tlsMaximum: tls.maximum,
                                     clientCertificate: tls.identity?.certificateChainPEM)
        }
        guard let proposal = cache.proposal(for: request, response: response, data: body,
                                            revalidated: transfer.cacheAnswer, requestTime: transfer.startDate,
                                            responseTime: Date(), usedCredential: transfer.machine.credential != nil,
                                            trust: trust),
              let chosen = events.transfer(transfer.task, willCache: proposal.cachedResponse) else { return }
        cache.store(proposal, as: chosen, for: url)
    }
}
