import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The parts of a `URLSessionConfiguration` the engine applies, copied once so the engine thread never
/// reads the (non-Sendable) configuration object.
///
/// Immutable and shared: every transfer keeps a reference (a value type's copy retained each of its
/// dozen references, about 650 instructions a request on the engine thread).
final class EngineSettings: Sendable {
    let additionalHeaders: [(name: String, value: String)]
    /// The additional headers' names, lowercased (read for every request).
    let additionalHeaderNames: Set<String>
    let requestTimeout: TimeInterval
    let resourceTimeout: TimeInterval
    let maximumConnectionsPerHost: Int
    let cookies: CookiePolicy
    let credentialStorage: URLCredentialStorage?
    let proxies: ProxySettings
    /// Whether any proxy is set (``proxy(for:)`` then looks): most sessions have none.
    private let usesProxies: Bool
    /// The HTTP cache over the configuration's `urlCache` (nil: no cache, or no cache plugin).
    let cache: (any SessionResponseCache)?
    /// The configuration's `protocolClasses` a local responder may consult, without Foundation's own
    /// (`_HTTPURLProtocol` and its kin, which the default configurations list): the engine is the HTTP
    /// implementation here.
    let protocolClasses: [AnyClass]
    /// The first of `httpAdditionalHeaders` that could not be sent as one header line: every request of
    /// the session fails with it before anything is sent.
    let invalidAdditionalHeader: InvalidRequestError.Reason?

    /// The settings of a session on `configuration` whose cache `responseCaching` makes (nil: none) and
    /// whose cookies `sharedCookieStandIn` keeps where the configuration names Foundation's shared storage.
    init(configuration: URLSessionConfiguration, responseCaching: (any ResponseCaching)? = nil,
         sharedCookieStandIn: (any CookieStoring)? = nil) {
        var headers: [(name: String, value: String)] = []
        for (key, value) in configuration.httpAdditionalHeaders ?? [:] {
            if let name = key as? String { headers.append((name, "\(value)")) }
        }
        additionalHeaders = headers.sorted { $0.name < $1.name }
        var invalid: InvalidRequestError.Reason?
        for header in additionalHeaders where invalid == nil {
            do {
                try InvalidRequestError.checkField(name: header.name, value: header.value, url: nil)
            } catch {
                invalid = error.reason
            }
        }
        invalidAdditionalHeader = invalid
        additionalHeaderNames = Set(headers.map { $0.name.lowercased() })
        requestTimeout = configuration.timeoutIntervalForRequest
        resourceTimeout = configuration.timeoutIntervalForResource
        maximumConnectionsPerHost = configuration.httpMaximumConnectionsPerHost
        cookies = CookiePolicy(configuration: configuration, sharedStandIn: sharedCookieStandIn)
        credentialStorage = configuration.urlCredentialStorage
        protocolClasses = (configuration.protocolClasses ?? []).filter {
            !String(reflecting: $0).hasPrefix("FoundationNetworking.")
        }
        cache = configuration.urlCache.flatMap { storage in
            responseCaching?.sessionCache(storage: storage, sessionPolicy: configuration.requestCachePolicy,
                                          additionalHeaders: headers)
        }
        proxies = ProxySettings(dictionary: configuration.connectionProxyDictionary,
                                environment: ProcessInfo.processInfo.environment)
        usesProxies = !proxies.isEmpty
    }

    /// The proxy for `url`, or nil to connect directly (``ProxySettings/proxy(for:)``). Asked for every
    /// request: without proxies it reads one flag (a call into the proxy settings copied them, their
    /// strings and exception list retained and released, about 600 instructions).
    func proxy(for url: URL) -> String? {
        usesProxies ? proxies.proxy(for: url) : nil
    }
}
