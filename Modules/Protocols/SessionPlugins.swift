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

    /// Plugins with `observer` and `localResponder` (default none).
    public init(observer: (any RequestObserver)? = nil, localResponder: (any LocalResponder)? = nil) {
        self.observer = observer
        self.localResponder = localResponder
    }

    /// No plugins: the bare engine.
    public static var none: SessionPlugins { SessionPlugins() }
}
