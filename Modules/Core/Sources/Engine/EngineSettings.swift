import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The parts of a `URLSessionConfiguration` the engine applies, copied once so the engine thread never
/// reads the (non-Sendable) configuration object.
struct EngineSettings: Sendable {
    var additionalHeaders: [(name: String, value: String)]
    /// The additional headers' names, lowercased (read for every request).
    var additionalHeaderNames: Set<String>
    var requestTimeout: TimeInterval
    var resourceTimeout: TimeInterval
    var maximumConnectionsPerHost: Int
    var cookies: CookiePolicy
    var credentialStorage: URLCredentialStorage?
    var proxies: ProxySettings
    /// The HTTP cache over the configuration's `urlCache` (nil: no cache, or no cache plugin).
    var cache: (any SessionResponseCache)?
    /// The configuration's `protocolClasses` a local responder may consult, without Foundation's own
    /// (`_HTTPURLProtocol` and its kin, which the default configurations list): the engine is the HTTP
    /// implementation here.
    var protocolClasses: [AnyClass]
    /// The first of `httpAdditionalHeaders` that could not be sent as one header line: every request of
    /// the session fails with it before anything is sent.
    var invalidAdditionalHeader: InvalidRequestError.Reason?

    /// The settings of a session on `configuration` whose cache `responseCaching` makes (nil: none) and
    /// whose cookies `sharedCookieStandIn` keeps where the configuration names Foundation's shared storage.
    init(configuration: URLSessionConfiguration, responseCaching: (any ResponseCaching)? = nil,
         sharedCookieStandIn: (any CookieStoring)? = nil) {
        var headers: [(name: String, value: String)] = []
        for (key, value) in configuration.httpAdditionalHeaders ?? [:] {
            if let name = key as? String { headers.append((name, "\(value)")) }
        }
        additionalHeaders = headers.sorted { $0.name < $1.name }
        for header in additionalHeaders where invalidAdditionalHeader == nil {
            do {
                try InvalidRequestError.checkField(name: header.name, value: header.value, url: nil)
            } catch {
                invalidAdditionalHeader = error.reason
            }
        }
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
    }
}
