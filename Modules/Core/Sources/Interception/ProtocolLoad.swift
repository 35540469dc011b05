import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a `URLProtocol` told its client, carried to the engine thread.
enum ProtocolEvent: @unchecked Sendable {
    // @unchecked Sendable: the protocol hands each value over and does not touch it again (as with
    // URLSession's client); the error may be any type, which Swift cannot check.
    case response(URLResponse)
    case data(Data)
    case finished
    case failed(any Error)
    case redirected(URLRequest, URLResponse)
}

/// The `URLProtocolClient` a protocol instance talks to. A protocol may call it from any thread: each
/// call becomes an engine command, handled on the engine thread in the order sent. Authentication
/// challenges and cache validity calls are not acted on (no protocol-driven challenge reaches the
/// session's handler).
final class ProtocolClientBridge: NSObject, URLProtocolClient, @unchecked Sendable {
    // @unchecked Sendable: both stored properties are immutable; the engine is weak and thread-safe to
    // send commands to.
    private weak var engine: SessionEngine?
    /// The task the load answered when it started (the load follows it if it becomes a download).
    let task: SessionTask

    init(engine: SessionEngine, task: SessionTask) {
        self.engine = engine
        self.task = task
    }

    private func send(_ event: ProtocolEvent) { engine?.protocolDidReport(event, through: self) }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        send(.redirected(request, redirectResponse))
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {}

    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse,
                     cacheStoragePolicy policy: URLCache.StoragePolicy) {
        send(.response(response))
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) { send(.data(data)) }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { send(.finished) }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) { send(.failed(error)) }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {}

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {}
}

/// A task a `URLProtocol` answers: the protocol instance and what it delivered so far.
///
/// Threading: confined to the engine thread (asserted by the engine's handlers).
final class ProtocolLoad {
    let bridge: ProtocolClientBridge
    let instance: URLProtocol
    /// The task being answered (a download task after `.becomeDownload`).
    var task: SessionTask
    var body = Data()
    var downloadSink: DownloadFileSink?
    var response: HTTPURLResponse?
    let startDate = Date()

    init(bridge: ProtocolClientBridge, instance: URLProtocol, task: SessionTask) {
        self.bridge = bridge
        self.instance = instance
        self.task = task
    }

    /// `response` as an HTTP response (a protocol may answer with a plain `URLResponse`: it becomes a
    /// 200 with its MIME type and length).
    static func httpResponse(_ response: URLResponse, for url: URL?) -> HTTPURLResponse {
        if let http = response as? HTTPURLResponse { return http }
        var fields: [String: String] = [:]
        if let type = response.mimeType {
            fields["Content-Type"] = type + (response.textEncodingName.map { "; charset=\($0)" } ?? "")
        }
        if response.expectedContentLength >= 0 { fields["Content-Length"] = "\(response.expectedContentLength)" }
        let target = response.url ?? url ?? URL(fileURLWithPath: "/")
        return HTTPURLResponse(url: target, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)!
    }
}
