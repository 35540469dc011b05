import Foundation

/// The optional parts a session consults beside its engine, each nil (off, a nil check) unless
/// installed. AFCore's managers take one (`URLSessionManager.Settings.plugins`); the umbrella module
/// `AFNetworking` installs its standard set (`SessionPlugins.standard`), so its managers log, measure
/// and trace as before.
///
/// Threading: a value; a session reads it where each task or attempt starts.
public struct SessionPlugins: Sendable {
    /// Watches each attempt and the session's gauges. Default nil: nothing is observed.
    public var observer: (any RequestObserver)?
    /// Answers requests instead of the network (URLProtocol-style stubs). Default nil: the network
    /// answers every request, and a configuration's `protocolClasses` are not consulted.
    public var localResponder: (any LocalResponder)?
    /// Makes the session's HTTP cache over its configuration's `urlCache`. Default nil: no cache, every
    /// request loads. Read once, when a session is made (as the configuration is): changing a made
    /// session's `plugins` does not change its cache.
    public var responseCache: (any ResponseCaching)?
    /// The cookie jar that stands in for Foundation's shared `HTTPCookieStorage`: a session whose
    /// configuration's `httpCookieStorage` is `HTTPCookieStorage.shared` (as `URLSessionConfiguration.default`'s
    /// is) keeps its cookies here instead. Default nil: the configuration's storage is used as it is.
    /// Read once, when a session is made.
    public var cookieStorage: (any CookieStoring)?

    /// Plugins with `observer`, `localResponder`, `responseCache` and `cookieStorage` (default none).
    public init(observer: (any RequestObserver)? = nil, localResponder: (any LocalResponder)? = nil,
                responseCache: (any ResponseCaching)? = nil, cookieStorage: (any CookieStoring)? = nil) {
        self.observer = observer
        self.localResponder = localResponder
        self.responseCache = responseCache
        self.cookieStorage = cookieStorage
    }

    /// No plugins: the bare engine.
    public static var none: SessionPlugins { SessionPlugins() }
}
