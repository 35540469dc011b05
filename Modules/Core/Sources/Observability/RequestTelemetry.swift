import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Metrics
import Tracing

/// What one attempt of a task reports to swift-log, swift-metrics and swift-distributed-tracing: a
/// debug line when it starts and one when it ends, request counts, durations, bytes and errors, and a
/// client span whose context travels in the request's headers (the tracer's propagation: W3C
/// `traceparent` with swift-otel).
///
/// Free when unused: ``begin(_:identifier:settings:)`` returns nil, and nothing else runs, unless the
/// logger logs at debug level, a metrics backend is set (the session's or a bootstrapped one), or a
/// tracer is (the session's or a bootstrapped one).
struct RequestTelemetry: Sendable {
    let logger: Logger?
    let metrics: (any MetricsFactory)?
    let span: (any Span)?
    /// The method as sent (uppercased), as log lines show it (``loggableMethod(_:)``).
    let method: String
    /// The method as metrics label it: ``methodLabel(_:)``.
    let methodLabel: String
    let url: String
    let started: UInt64
    /// What a recorded error must not name: the request's URL (whose loggable form replaces it), whether
    /// query values are kept, and the credential header values (spans only).
    let target: URL
    let logsQueryValues: Bool
    let credentials: [String]

    /// Starts the telemetry of an attempt of `request` (whose headers get the span's context), and
    /// returns it with the request as it is to be sent.
    /// `request` is read only when something listens (the lean path on swift-http-types builds one then).
    static func begin(_ request: () -> URLRequest?, identifier: Int, settings: ObservabilitySettings)
        -> (telemetry: RequestTelemetry, request: URLRequest)? {
        let logger = settings.logger.logLevel <= .debug ? settings.logger : nil
        let metrics = settings.metricsFactory ?? (MetricsSystem.factory is NOOPMetricsHandler ? nil : MetricsSystem.factory)
        let tracer = settings.tracer ?? (InstrumentationSystem.tracer is NoOpTracer ? nil : InstrumentationSystem.tracer)
        guard logger != nil || metrics != nil || tracer != nil, var request = request(), let target = request.url else {
            return nil
        }
        let method = request.httpMethod?.uppercased() ?? "GET"
        let methodLabel = Self.methodLabel(method)
        let url = Self.loggable(target, queryValues: settings.logsQueryValues)
        var span: (any Span)?
        if let tracer {
            let isOther = methodLabel == Self.otherLabel
            let started = tracer.startSpan(isOther ? Self.otherMethodSpanName : methodLabel,
                                           context: ServiceContext.current ?? .topLevel, ofKind: .client)
            started.attributes["http.request.method"] = methodLabel
            if isOther { started.attributes["http.request.method_original"] = Self.boundedOriginalMethod(method) }
            started.attributes["url.full"] = url
            if let host = target.host { started.attributes["server.address"] = host }
            if let port = target.port ?? (target.scheme == "https" ? 443 : 80) as Int? {
                started.attributes["server.port"] = port
            }
            tracer.inject(started.context, into: &request, using: HeaderInjector())
            span = started
        }
        var logging = logger
        logging?[metadataKey: "af.request.id"] = "\(identifier)"
        let logged = Self.loggableMethod(method)
        logging?.debug("request", metadata: ["http.method": "\(logged)", "url": "\(url)"])
        let telemetry = RequestTelemetry(logger: logging, metrics: metrics, span: span, method: logged,
                                         methodLabel: methodLabel, url: url,
                                         started: DispatchTime.now().uptimeNanoseconds, target: target,
                                         logsQueryValues: settings.logsQueryValues,
                                         credentials: span == nil ? [] : Self.credentialHeaderValues(of: request))
        return (telemetry, request)
    }

    /// Ends the attempt: its response (or error), bytes and duration.
    func end(response: HTTPURLResponse?, error: (any Error)?, bytesSent: Int64, bytesReceived: Int64) {
        let nanoseconds = Int64(DispatchTime.now().uptimeNanoseconds &- started)
        let code = error.map { ($0 as NSError).code }
        let statusClass = error != nil ? "error" : response.map { Self.statusClassLabel($0.statusCode) } ?? "none"
        if let logger {
            var metadata: Logger.Metadata = [
                "http.method": "\(method)", "url": "\(url)", "duration.ms": "\(nanoseconds / 1_000_000)",
                "bytes.sent": "\(bytesSent)", "bytes.received": "\(bytesReceived)",
            ]
            if let status = response?.statusCode { metadata["http.status"] = "\(status)" }
            if let code { metadata["error.code"] = "\(code)" }
            logger.debug(error == nil ? "response" : "failure", metadata: metadata)
        }
        if let metrics {
            let dimensions = [("method", methodLabel), ("status_class", statusClass)]
            Counter(label: Self.requestsLabel, dimensions: dimensions, factory: metrics).increment()
            Timer(label: Self.durationLabel, dimensions: dimensions, factory: metrics).recordNanoseconds(nanoseconds)
            Counter(label: Self.sentLabel, dimensions: [("method", methodLabel)], factory: metrics)
                .increment(by: max(0, bytesSent))
            Counter(label: Self.receivedLabel, dimensions: [("method", methodLabel)], factory: metrics)
                .increment(by: max(0, bytesReceived))
            if let error {
                Counter(label: Self.errorsLabel, dimensions: [("code", Self.errorCodeLabel(error))], factory: metrics).increment()
            }
        }
        if let span {
            if let status = response?.statusCode {
                span.attributes["http.response.status_code"] = status
                if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            }
            if let error {
                span.recordError(Self.recordable(error, request: target, secrets: credentials,
                                                 queryValues: logsQueryValues))
                span.attributes["error.type"] = Self.errorCodeLabel(error)
                span.setStatus(SpanStatus(code: .error))
            }
            span.end()
        }
    }

    static let requestsLabel = "af_http_client_requests_total"
    static let durationLabel = "af_http_client_request_duration"
    static let sentLabel = "af_http_client_request_body_bytes_total"
    static let receivedLabel = "af_http_client_response_bytes_total"
    static let errorsLabel = "af_http_client_errors_total"
    static let waitingLabel = "af_http_client_waiting_tasks"
    static let connectionsLabel = "af_http_client_open_connections"
}

/// Writes a span's context into the request's headers.
private struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}

/// Where a session's requests report (part of ``URLSessionManager/Settings``).
public struct ObservabilitySettings: Sendable {
    /// The session's logger: a debug line when each request starts and ends, with metadata (a request
    /// id, the method, the URL without credentials or query values, status, bytes, milliseconds).
    /// Default: a logger that logs nothing (``URLSessionManager/disabledLogger``); a task's own
    /// ``SessionTask/logger`` replaces it.
    public var logger: Logger = URLSessionManager.disabledLogger
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
}

extension URLSessionManager {
    /// A logger that logs nothing: the default (logging costs nothing until you set one).
    public static let disabledLogger = Logger(label: "com.alamofire.networking", factory: { _ in SwiftLogNoOpLogHandler() })
}
