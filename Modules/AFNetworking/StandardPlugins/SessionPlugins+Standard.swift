import AFObservability
import AFProtocols

extension SessionPlugins {
    /// The plugins every manager the umbrella module `AFNetworking` makes consults (and the 2.x
    /// operations' sessions, and `af`): AFObservability's `ObservabilitySettings()` as the observer, so
    /// requests log through the session's logger and report to a bootstrapped metrics or tracing backend.
    public static var standard: SessionPlugins { SessionPlugins(observer: ObservabilitySettings()) }
}
