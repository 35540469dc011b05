import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The task's `URLProtocol`, chosen where the task was resumed (``URLProtocolRouting``).
struct ProtocolRoute: @unchecked Sendable {
    // @unchecked Sendable: a class object and a value; the class's methods are what URLSession also
    // calls from its own threads.
    let protocolClass: URLProtocol.Type
    let request: URLRequest
}

/// Tasks a `URLProtocol` answers instead of the network: the engine runs the protocol instance and turns
/// what it reports through its client into the same events a transfer produces (response hook, data
/// hook, progress, redirect hook, completion), on the engine thread.
///
/// `startLoading()` and `stopLoading()` run on the engine thread: a protocol that waits should hand
/// its work to a queue (as it would on Apple platforms, where they run on a URLSession thread).
extension SessionEngine {
    /// The largest upload body handed to a protocol as the request's `httpBody` (a bigger or throttled
    /// streamed body is not read into memory; the protocol sees the request without it).
    static let maximumProtocolBodySize = 16 << 20

    func beginProtocolLoad(_ task: SessionTask, route: ProtocolRoute) {
        confinement.assertOnOwner("starting a URLProtocol load")
        task.updateStorage { $0.protocolRoute = nil }
        var request = route.request
        if request.httpBody == nil, let source = task.bodySource { request.httpBody = Self.bodyData(of: source) }
        let bridge = ProtocolClientBridge(engine: self, task: task)
        let instance = route.protocolClass.init(request: request, cachedResponse: nil, client: bridge)
        let load = ProtocolLoad(bridge: bridge, instance: instance, task: task)
        if task is SessionDownloadTask {
            do {
                var sink = DownloadFileSink()
                _ = try sink.open(resuming: nil, failingURL: request.url)
                load.downloadSink = sink
            } catch {
                finishWithoutTransfer(task, error: error)
                return
            }
        }
        protocolLoads[ObjectIdentifier(bridge)] = load
        instance.startLoading()
    }

    /// Sent by a protocol's client, from any thread.
    func protocolDidReport(_ event: ProtocolEvent, through bridge: ProtocolClientBridge) {
        sendProtocolEvent(event, bridge)
    }

    func handleProtocolEvent(_ event: ProtocolEvent, from bridge: ProtocolClientBridge) {
        confinement.assertOnOwner("a URLProtocol event")
        // A stopped load (cancelled, redirected) may still report: ignored.
        guard let load = protocolLoads[ObjectIdentifier(bridge)], let events else { return }
        let task = load.task
        switch event {
        case .response(let response):
            guard load.response == nil else { return }
            let http = ProtocolLoad.httpResponse(response, for: task.currentRequest?.url)
            load.response = http
            task.updateStorage { state in
                state.responseHead = ResponseHead(response: http)
                state.countOfBytesExpectedToReceive = response.expectedContentLength
            }
            guard task.leanDelivery == nil else { return }
            switch events.transferDidReceiveResponse(task, statusCode: http.statusCode) {
            case .allow: break
            case .cancel: endProtocolLoad(load, error: cancellationError(of: task, url: http.url))
            case .becomeDownload(let download):
                load.task = download
                load.body = Data()
                var sink = DownloadFileSink()
                do {
                    _ = try sink.open(resuming: nil, failingURL: http.url)
                    load.downloadSink = sink
                } catch {
                    endProtocolLoad(load, error: error)
                }
            }
        case .data(let data):
            guard !data.isEmpty else { return }
            if let sink = load.downloadSink {
                if !data.withUnsafeBytes({ sink.write($0) }) {
                    endProtocolLoad(load, error: CurlErrorMapping.error(.cannotWriteToFile, url: task.currentRequest?.url))
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
                endProtocolLoad(load, error: CurlErrorMapping.error(.badServerResponse, url: task.currentRequest?.url,
                                                                    description: "The URL protocol finished without a response."))
            } else {
                endProtocolLoad(load, error: nil)
            }
        case .failed(let error):
            endProtocolLoad(load, error: error)
        case .redirected(let proposed, let response):
            let http = ProtocolLoad.httpResponse(response, for: task.currentRequest?.url)
            let next = task.leanDelivery == nil
                ? events.transfer(task, willPerformRedirection: http, newRequest: proposed) : proposed
            stopProtocolLoad(load)
            guard let next else {
                // Declined: the redirect response is the answer, as for a network redirect.
                task.updateStorage { $0.responseHead = ResponseHead(response: http) }
                load.response = http
                complete(load, error: nil)
                return
            }
            task.updateStorage { $0.currentRequest = next }
            if let route = protocolRouting.route(next) {
                beginProtocolLoad(task, route: ProtocolRoute(protocolClass: route.protocolClass, request: route.request))
            } else {
                startOnNetwork(task)
            }
        }
    }

    /// Cancels `task`'s protocol load if it has one; true when it had.
    func cancelProtocolLoad(of task: SessionTask) -> Bool {
        guard let load = protocolLoads.values.first(where: { $0.task === task }) else { return false }
        endProtocolLoad(load, error: cancellationError(of: task, url: task.currentRequest?.url))
        return true
    }

    /// Cancels every protocol load (invalidation that cancels tasks).
    func cancelAllProtocolLoads() {
        for load in Array(protocolLoads.values) {
            load.task.cancel()
            endProtocolLoad(load, error: cancellationError(of: load.task, url: load.task.currentRequest?.url))
        }
    }

    private func endProtocolLoad(_ load: ProtocolLoad, error: (any Error)?) {
        stopProtocolLoad(load)
        complete(load, error: error)
    }

    private func stopProtocolLoad(_ load: ProtocolLoad) {
        protocolLoads[ObjectIdentifier(load.bridge)] = nil
        load.instance.stopLoading()
    }

    private func complete(_ load: ProtocolLoad, error: (any Error)?) {
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

    /// An upload's body as data for the protocol's request (nil past ``maximumProtocolBodySize`` or on a
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
                if data.count > maximumProtocolBodySize { return nil }
            case .end?: return data
            case .wait?, nil: return nil  // a throttled source would hold the engine thread
            }
        }
    }
}
