import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The engine's side of the HTTP cache (``ResponseCache`` decides before a task starts): answering a
/// task from the cache without a transfer, and storing or invalidating after one.
extension SessionEngine {
    /// Completes `task` with `stored`, as a transfer would have (response hook, data hook, progress,
    /// completion), without touching the network. Its metrics say `.localCache`.
    func answerFromCache(_ task: SessionTask, with stored: StoredResponse) {
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

    /// After `transfer` ended well: stores its response when RFC 9111 allows (through the session's
    /// `willCacheResponse` answer), or removes what an unsafe method changed (§4.4).
    func updateCache(after transfer: Transfer, body: Data?) {
        let task = transfer.task
        guard let cache = settings.cache, let events, let head = task.updateStorage({ $0.responseHead }) else { return }
        let url: URL
        let method: String
        let storesBody: Bool
        let headers: RequestHeaders
        if let plain = task.fieldRequest {
            // An HTTPRequest, read as it is.
            (url, method) = (plain.url, plain.method)
            storesBody = body != nil && ResponseCache.serves(task, method: method, url: url, fieldNames: plain.lowercasedNames)
            headers = RequestHeaders(lines: plain.fieldLines, additional: [])
        } else {
            guard let request = task.originalRequest, let requestURL = request.url else { return }
            (url, method) = (requestURL, (request.httpMethod ?? "GET").uppercased())
            storesBody = body != nil && ResponseCache.serves(task, request: request)
            headers = RequestHeaders(request: request, additional: [])
        }
        let invalidates = CacheRules.invalidates(method: method, statusCode: head.statusCode)
        // Most answers are not stored: decided from the header lines, as an HTTPURLResponse costs more
        // than the rest of a small request's work on this thread.
        guard invalidates || transfer.cacheAnswer != nil
                || (storesBody && CacheRules.mayBeStorable(statusCode: head.statusCode,
                                                           cacheControl: head.value(named: "cache-control"),
                                                           expires: head.value(named: "expires"))),
              let response = head.response else { return }
        if invalidates {
            cache.remove(url)
            // Location and Content-Location name the resource too, when on the same origin (§4.4).
            for name in ["Location", "Content-Location"] {
                if let value = response.value(forHTTPHeaderField: name), let target = URL(string: value, relativeTo: url),
                   target.scheme == url.scheme, target.host == url.host, target.port == url.port {
                    cache.remove(target.absoluteURL)
                }
            }
            return
        }
        guard storesBody, let body else { return }
        let entry = transfer.cacheAnswer ?? cache.entry(method: method, url: url, headers: headers, response: response,
                                                        data: body, requestTime: transfer.startDate, responseTime: Date(),
                                                        usedCredential: transfer.machine.credential != nil)
        guard var entry else { return }
        if url.scheme?.lowercased() == "https" {
            // Stored only with a record of the trust it was fetched under (CacheTrust).
            guard let tls = transfer.attemptTLS, !tls.asksForIdentityPerChallenge,
                  !transfer.recordsPeerChain || transfer.peerChain != nil else { return }
            entry.trust = CacheTrust(policyEvaluatedChain: transfer.recordsPeerChain ? transfer.peerChain : nil,
                                     tlsMinimum: tls.minimum, tlsMaximum: tls.maximum,
                                     clientCertificate: tls.identity?.certificateChainPEM)
        }
        guard let chosen = events.transfer(transfer.task, willCache: entry.cachedURLResponse()) else { return }
        cache.store(entry.annotating(chosen), for: url)
    }
}
