import AFCore
import AFMultipart
import AFProtocols
import AFReachability
import AFRequestSerialization
import AFResponseSerialization
import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// AFNetworking's defaults for the session managers, composed here because AFCore cannot import the
// serializer modules (the dependency rule).

extension URLSessionManager {
    /// Creates a manager with AFNetworking's defaults on a session with `configuration` (nil: the default
    /// configuration): `JSONResponseSerializer` decodes responses, `SecurityPolicy/default` decides
    /// server trust inside each TLS handshake, and `reachabilityManager` is
    /// `NetworkReachabilityManager/shared` (not started, as AFNetworking).
    public convenience init(sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        self.init(sessionConfiguration: configuration, responseSerializer: SessionManagerDefaults.responseSerializer())
        reachabilityManager = NetworkReachabilityManager.shared
        // Mode .none is accepted for any base URL: this cannot throw.
        try? setSecurityPolicy(SecurityPolicy.default)
    }
}

extension HTTPSessionManager {
    /// Creates a manager for `baseURL` with AFNetworking's defaults: `HTTPRequestSerializer`,
    /// `JSONResponseSerializer`, `MultipartFormRequestBuilder` for multipart POSTs,
    /// `SecurityPolicy/default` and `NetworkReachabilityManager/shared` as the reachability monitor
    /// (not started).
    public convenience init(baseURL: URL? = nil, sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        self.init(baseURL: baseURL, sessionConfiguration: configuration, requestSerializer: HTTPRequestSerializer(),
                  responseSerializer: SessionManagerDefaults.responseSerializer())
        multipartFormRequestBuilder = MultipartFormRequestBuilder()
        reachabilityManager = NetworkReachabilityManager.shared
        // Mode .none is accepted for any base URL: this cannot throw.
        try? setSecurityPolicy(SecurityPolicy.default)
    }
}

/// The default components, in one place.
enum SessionManagerDefaults {
    static func responseSerializer() -> any ResponseSerializing { JSONResponseSerializer() }
}
