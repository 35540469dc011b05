import Foundation

/// The optional parts a session consults beside its engine, each nil (off, a nil check) unless
/// installed. AFCore's managers take one (`URLSessionManager.Settings.plugins`); the umbrella module
/// `AFNetworking` installs its standard set (`SessionPlugins.standard`), so its managers log, measure
/// and trace as before.
///
/// Threading: a value; a session reads it where an attempt starts.
public struct SessionPlugins: Sendable {
    /// Watches each attempt and the session's gauges. Default nil: nothing is observed.
    public var observer: (any RequestObserver)?

    /// Plugins with `observer` (default none).
    public init(observer: (any RequestObserver)? = nil) {
        self.observer = observer
    }

    /// No plugins: the bare engine.
    public static var none: SessionPlugins { SessionPlugins() }
}
