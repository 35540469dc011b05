#if Observability
import AFCore
import AFObservability
import AFProtocols
import Logging

// The observability API of the managers and tasks, on the standard observer (AFObservability's
// `ObservabilitySettings`), composed here because AFCore knows only the observer seam.

extension URLSessionManager.Settings {
    /// Where requests report: swift-log, swift-metrics, swift-distributed-tracing, as the session's
    /// observer (`SessionPlugins.observer`). Reading it gives the installed `ObservabilitySettings`
    /// (or, if another observer is installed, a default value); setting it installs the new value as the
    /// observer, replacing any other. The umbrella's managers start with `ObservabilitySettings()`:
    /// nothing reported unless a metrics or tracing backend is bootstrapped.
    public var observability: ObservabilitySettings {
        get { plugins.observer as? ObservabilitySettings ?? ObservabilitySettings() }
        set { plugins.observer = newValue }
    }
}

extension URLSessionManager {
    /// The session's logger (`ObservabilitySettings.logger`); setting it installs the standard observer
    /// if another one was installed.
    public var logger: Logger {
        get { settings.observability.logger }
        set { updateSettings { $0.observability.logger = newValue } }
    }

    /// A logger that logs nothing: the default (logging costs nothing until you set one).
    public static var disabledLogger: Logger { ObservabilitySettings.disabledLogger }
}

extension SessionTask {
    /// The logger of this task's request and response lines, in place of the session's
    /// ``URLSessionManager/logger``; nil (the default) uses the session's. Set it before `resume()`. It is
    /// the task's `observationContext`, which the standard observer reads.
    public var logger: Logger? {
        get { observationContext as? Logger }
        set { observationContext = newValue }
    }
}
#endif
