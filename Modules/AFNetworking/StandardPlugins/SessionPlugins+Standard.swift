import AFCookies
import AFHTTPCache
#if Observability
import AFObservability
#endif
import AFProtocols
import AFURLProtocol

extension SessionPlugins {
    /// The plugins every manager the umbrella module `AFNetworking` makes consults (and the 2.x
    /// operations' sessions, and `af`): AFObservability's `ObservabilitySettings()` as the observer, so
    /// requests log through the session's logger and report to a bootstrapped metrics or tracing
    /// backend; AFURLProtocol's `URLProtocolResponder()` as the local responder, so a configuration's
    /// `protocolClasses` and the registered classes answer as in URLSession; AFHTTPCache's `HTTPCache()`,
    /// so the configuration's `urlCache` caches as RFC 9111 says; AFCookies' `CookieJar.shared` as the
    /// cookie storage, so a configuration that names Foundation's shared `HTTPCookieStorage` (the default
    /// one does) keeps its cookies in a jar with public-suffix rules, bounds and a private file.
    /// (Without the package's `Observability` trait there is no observer.)
    public static var standard: SessionPlugins {
        #if Observability
        SessionPlugins(observer: ObservabilitySettings(), localResponder: URLProtocolResponder(), responseCache: HTTPCache(),
                       cookieStorage: CookieJar.shared)
        #else
        SessionPlugins(localResponder: URLProtocolResponder(), responseCache: HTTPCache(), cookieStorage: CookieJar.shared)
        #endif
    }
}
