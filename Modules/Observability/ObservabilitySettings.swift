#if Observability
import AFProtocols
import Foundation
import Logging
import Metrics
import Tracing

/// Where a session's requests report: a debug line per request start and end on swift-log, request
/// counts, durations, bytes, errors and the session's gauges on swift-metrics, and a client span per
/// attempt on swift-distributed-tracing (its context sent in the request's headers).
///
/// A `RequestObserver`: install it as a session's `SessionPlugins.observer` (the umbrella
/// module `AFNetworking` installs `ObservabilitySettings()` in every manager it makes, and gives them
/// `URLSessionManager.Settings.observability`, `URLSessionManager.logger` and `SessionTask.logger`).
/// A task may carry its own `Logger` as its observation context: it replaces ``logger`` for that task.
///
/// Threading: a value; its reports are made on the thread that starts an attempt and on the engine thread.
public struct ObservabilitySettings: RequestObserver {
    /// The session's logger: a debug line when each request starts and ends, with metadata (a request
    /// id, the method, the URL without credentials or query values, status, bytes, milliseconds).
    /// Default: a logger that logs nothing (``disabledLogger``); a task's own logger replaces it.
    public var logger: Logger = Self.disabledLogger
    /// Whether logged and traced URLs (in the errors spans record too) keep their query values. Default
    /// false: `?token=…`. Credentials (the URL's user and password, `Authorization`, `Proxy-Authorization`
    /// and `Cookie` values) are never reported.
    public var logsQueryValues = false
    /// Where metrics go; nil (the default) uses `MetricsSystem`'s bootstrapped factory (and, if none was
    /// bootstrapped, records nothing).
    public var metricsFactory: (any MetricsFactory)?
    /// The tracer of the client spans; nil (the default) uses `InstrumentationSystem`'s (and, if none
    /// was bootstrapped, traces nothing).
    public var tracer: (any Tracer)?

    /// Nothing reported unless a backend is bootstrapped.
    public init() {}

    /// A logger that logs nothing: the default (logging costs nothing until you set one).
    public static let disabledLogger = Logger(label: "com.alamofire.networking", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Starts an attempt's reports; nil (nothing read of the request) when nothing listens.
    public func attemptWillStart(_ attempt: ObservedAttempt) -> (any AttemptObservation)? {
        RequestTelemetry.begin(attempt, settings: self)
    }

    /// Records the gauges `af_http_client_open_connections` and `af_http_client_waiting_tasks`.
    public func gaugesDidChange(_ gauges: SessionGauges) {
        RequestTelemetry.record(gauges, settings: self)
    }
}
#endif
