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
    /// `NetworkReachabilityManager/shared` (not started, as AFNetworking), with `SessionPlugins/standard`.
    public convenience init(sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        self.init(sessionConfiguration: configuration, responseSerializer: SessionManagerDefaults.responseSerializer(),
                  plugins: .standard)
        reachabilityManager = NetworkReachabilityManager.shared
        // Mode .none is accepted for any base URL: this cannot throw.
        try? setSecurityPolicy(SecurityPolicy.default)
    }

    /// Creates a manager on a session with `configuration` (nil: the default configuration) decoding with
    /// `responseSerializer`, with `SessionPlugins/standard` (AFCore's initializer, where this module is
    /// imported, so every manager made here logs, measures and traces).
    public convenience init(sessionConfiguration configuration: URLSessionConfiguration? = nil,
                            responseSerializer: any ResponseSerializing) {
        self.init(sessionConfiguration: configuration, responseSerializer: responseSerializer, plugins: .standard)
    }
}

extension HTTPSessionManager {
    /// Creates a manager for `baseURL` with AFNetworking's defaults: `HTTPRequestSerializer`,
    /// `JSONResponseSerializer`, `MultipartFormRequestBuilder` for multipart POSTs,
    /// `SecurityPolicy/default` and `NetworkReachabilityManager/shared` as the reachability monitor
    /// (not started), with `SessionPlugins/standard`.
    public convenience init(baseURL: URL? = nil, sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        self.init(baseURL: baseURL, sessionConfiguration: configuration, requestSerializer: HTTPRequestSerializer(),
                  responseSerializer: SessionManagerDefaults.responseSerializer(), plugins: .standard)
        multipartFormRequestBuilder = MultipartFormRequestBuilder()
        reachabilityManager = NetworkReachabilityManager.shared
        // Mode .none is accepted for any base URL: this cannot throw.
        try? setSecurityPolicy(SecurityPolicy.default)
    }
}

extension HTTPSessionManager {
    /// Creates a manager for `baseURL` on a session with `configuration` with the given serializers and
    /// `SessionPlugins/standard` (AFCore's initializer, where this module is imported).
    public convenience init(baseURL: URL?, sessionConfiguration configuration: URLSessionConfiguration?,
                            requestSerializer: any HTTPRequestSerializing, responseSerializer: any ResponseSerializing) {
        self.init(baseURL: baseURL, sessionConfiguration: configuration, requestSerializer: requestSerializer,
                  responseSerializer: responseSerializer, plugins: .standard)
    }
}

/// The default components, in one place.
enum SessionManagerDefaults {
    static func responseSerializer() -> any ResponseSerializing { JSONResponseSerializer() }
}
