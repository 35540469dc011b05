import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request a `URLProtocol` subclass answers: the instance is made when the session starts the load,
/// with a client that reports what it is told as the load's events.
///
/// Threading: `start` and `stop` run on the session's engine thread; the protocol may call its client
/// from any thread.
final class URLProtocolLoad: LocalLoad, @unchecked Sendable {
    // @unchecked Sendable: `protocolClass` and `request` are immutable; `instance` (a URLProtocol, which
    // Foundation marks non-Sendable) is set in `start` and read in `stop`, both on the engine thread,
    // and guarded by `lock` besides.
    let protocolClass: URLProtocol.Type
    let request: URLRequest
    private let lock = NSLock()
    private var instance: URLProtocol?

    init(protocolClass: URLProtocol.Type, request: URLRequest) {
        self.protocolClass = protocolClass
        self.request = request
    }

    func start(_ request: URLRequest, reportingTo events: LocalLoadEvents) {
        let started = protocolClass.init(request: request, cachedResponse: nil, client: ProtocolClient(events: events))
        lock.withLock { instance = started }
        started.startLoading()
    }

    func stop() {
        lock.withLock { instance }?.stopLoading()
    }
}

/// The `URLProtocolClient` a protocol instance talks to: each call becomes one of the load's events.
/// Authentication challenges and cache validity calls are not acted on (no protocol-driven challenge
/// reaches the session's handler).
private final class ProtocolClient: NSObject, URLProtocolClient, @unchecked Sendable {
    // @unchecked Sendable: the only stored property is an immutable Sendable value.
    private let events: LocalLoadEvents

    init(events: LocalLoadEvents) {
        self.events = events
    }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        events.report(.redirected(request, redirectResponse))
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {}

    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse,
                     cacheStoragePolicy policy: URLCache.StoragePolicy) {
        events.report(.response(response))
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) { events.report(.data(data)) }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { events.report(.finished) }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) { events.report(.failed(error)) }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {}

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {}
}
