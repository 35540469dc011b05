import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Tasks a local load answers instead of the network (`SessionPlugins.localResponder`: URLProtocol
/// stubs with AFURLProtocol): the engine starts the load and turns what it reports into the same events
/// a transfer produces (response hook, data hook, progress, redirect hook, completion), on the engine
/// thread.
///
/// `start` and `stop` run on the engine thread: a load that waits should hand its work to a queue (as a
/// URLProtocol would on Apple platforms, where they run on a URLSession thread).
extension SessionEngine {
    /// The largest upload body handed to a load as the request's `httpBody` (a bigger or throttled
    /// streamed body is not read into memory; the load sees the request without it).
    static let maximumLocalLoadBodySize = 16 << 20

    func beginLocalLoad(_ task: SessionTask, _ load: any LocalLoad) {
        confinement.assertOnOwner("starting a local load")
        task.updateStorage { $0.localLoad = nil }
        var request = load.request
        if request.httpBody == nil, let source = task.bodySource { request.httpBody = Self.bodyData(of: source) }
        let state = LocalLoadState(load: load, task: task)
        if task is SessionDownloadTask {
            do {
                var sink = DownloadFileSink()
                _ = try sink.open(resuming: nil, failingURL: request.url)
                state.downloadSink = sink
            } catch {
                finishWithoutTransfer(task, error: error)
                return
            }
        }
        let token = state.token
        localLoads[ObjectIdentifier(token)] = state
        load.start(request, reportingTo: LocalLoadEvents { [weak self, token] event in
            self?.sendLocalLoadEvent(event, from: ObjectIdentifier(token))
        })
    }

    func handleLocalLoadEvent(_ event: LocalLoadEvent, from identity: ObjectIdentifier) {
        confinement.assertOnOwner("a local load's event")
        // A stopped load (cancelled, redirected) may still report: ignored.
        guard let load = localLoads[identity], let events else { return }
        let task = load.task
        switch event {
        case .response(let response):
            guard load.response == nil else { return }
            let http = LocalLoadState.httpResponse(response, for: task.currentRequest?.url)
            load.response = http
            task.updateStorage { state in
                state.responseHead = ResponseHead(response: http)
                state.countOfBytesExpectedToReceive = response.expectedContentLength
            }
            guard task.leanDelivery == nil else { return }
            switch events.transferDidReceiveResponse(task, statusCode: http.statusCode) {
            case .allow: break
            case .cancel: endLocalLoad(load, error: cancellationError(of: task, url: http.url))
            case .becomeDownload(let download):
                load.task = download
                load.body = Data()
                var sink = DownloadFileSink()
                do {
                    _ = try sink.open(resuming: nil, failingURL: http.url)
                    load.downloadSink = sink
                } catch {
                    endLocalLoad(load, error: error)
                }
            }
        case .data(let data):
            guard !data.isEmpty else { return }
            if let sink = load.downloadSink {
                if !data.withUnsafeBytes({ sink.write($0) }) {
                    endLocalLoad(load, error: CurlErrorMapping.error(.cannotWriteToFile, url: task.currentRequest?.url))
                    return
                }
            } else {
                if task.leanDelivery != nil || events.keepsReceivedBody { load.body.append(data) }
                if task.leanDelivery == nil, events.wantsReceivedData { events.transfer(task, didReceive: data) }
            }
            task.updateStorage { $0.countOfBytesReceived += Int64(data.count) }
            if task.leanDelivery == nil {
                events.transferDidUpdateProgress(task, bytesSentDelta: 0, bytesWrittenDelta: Int64(data.count))
            }
        case .finished:
            if load.response == nil {
                endLocalLoad(load, error: CurlErrorMapping.error(.badServerResponse, url: task.currentRequest?.url,
                                                                    description: "The URL protocol finished without a response."))
            } else {
                endLocalLoad(load, error: nil)
            }
        case .failed(let error):
            endLocalLoad(load, error: error)
        case .redirected(let proposed, let response):
            let http = LocalLoadState.httpResponse(response, for: task.currentRequest?.url)
            let next = task.leanDelivery == nil
                ? events.transfer(task, willPerformRedirection: http, newRequest: proposed) : proposed
            stopLocalLoad(load)
            guard let next else {
                // Declined: the redirect response is the answer, as for a network redirect.
                task.updateStorage { $0.responseHead = ResponseHead(response: http) }
                load.response = http
                complete(load, error: nil)
                return
            }
            task.updateStorage { $0.currentRequest = next }
            if let responder = events.localResponder,
               let following = responder.load(for: next, protocolClasses: settings.protocolClasses) {
                beginLocalLoad(task, following)
            } else {
                startOnNetwork(task)
            }
        }
    }

    /// Cancels `task`'s local load if it has one; true when it had.
    func cancelLocalLoad(of task: SessionTask) -> Bool {
        guard let load = localLoads.values.first(where: { $0.task === task }) else { return false }
        endLocalLoad(load, error: cancellationError(of: task, url: task.currentRequest?.url))
        return true
    }

    /// Cancels every local load (invalidation that cancels tasks).
    func cancelAllLocalLoads() {
        for load in Array(localLoads.values) {
            load.task.cancel()
            endLocalLoad(load, error: cancellationError(of: load.task, url: load.task.currentRequest?.url))
        }
    }

    private func endLocalLoad(_ load: LocalLoadState, error: (any Error)?) {
        stopLocalLoad(load)
        complete(load, error: error)
    }

    private func stopLocalLoad(_ state: LocalLoadState) {
        localLoads[ObjectIdentifier(state.token)] = nil
        state.load.stop()
    }

    private func complete(_ load: LocalLoadState, error: (any Error)?) {
        let task = load.task
        var outcome = TransferOutcome(error: error)
        let now = Date()
        outcome.metrics = SessionTaskMetrics(
            taskInterval: DateInterval(start: load.startDate, end: max(load.startDate, now)), redirectCount: 0,
            domainLookupDuration: 0, connectDuration: 0, secureConnectionDuration: 0, timeToFirstByte: 0,
            totalDuration: now.timeIntervalSince(load.startDate), networkProtocolName: nil, isReusedConnection: false,
            countOfRequestBodyBytesSent: 0, countOfResponseBytesReceived: task.countOfBytesReceived,
            resourceFetchType: .unknown)
        if var sink = load.downloadSink {
            sink.close()
            if error == nil {
                outcome.temporaryFile = sink.url
            } else if let path = sink.url?.path {
                unlink(path)
            }
        } else if error == nil {
            outcome.data = load.body
        }
        task.updateStorage { state in
            state.state = .completed
            state.error = error
            state.metrics = outcome.metrics
        }
        finishedTransfers.append(FinishedTransfer(task: task, outcome: outcome))
    }

    /// An upload's body as data for the load's request (nil past ``maximumLocalLoadBodySize`` or on a
    /// read error).
    private static func bodyData(of source: any BodySource) -> Data? {
        if let data = (source as? DataBodySource)?.data { return data }
        guard let reader = try? source.makeReader() else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = try? buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            switch result {
            case .bytes(let count)?:
                data.append(contentsOf: buffer[0..<count])
                if data.count > maximumLocalLoadBodySize { return nil }
            case .end?: return data
            case .wait?, nil: return nil  // a throttled source would hold the engine thread
            }
        }
    }
}
