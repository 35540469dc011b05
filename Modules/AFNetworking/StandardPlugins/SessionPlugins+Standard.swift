import AFHTTPCache
import AFObservability
import AFProtocols
import AFURLProtocol

extension SessionPlugins {
    /// The plugins every manager the umbrella module `AFNetworking` makes consults (and the 2.x
    /// operations' sessions, and `af`): AFObservability's `ObservabilitySettings()` as the observer, so
    /// requests log through the session's logger and report to a bootstrapped metrics or tracing
    /// backend; AFURLProtocol's `URLProtocolResponder()` as the local responder, so a configuration's
    /// `protocolClasses` and the registered classes answer as in URLSession; AFHTTPCache's `HTTPCache()`,
    /// so the configuration's `urlCache` caches as RFC 9111 says.
    public static var standard: SessionPlugins {
        SessionPlugins(observer: ObservabilitySettings(), localResponder: URLProtocolResponder(), responseCache: HTTPCache())
    }
}
