#if Observability
import AFProtocols
import Foundation
import Logging
import Metrics
import Tracing

/// What one attempt of a task reports to swift-log, swift-metrics and swift-distributed-tracing: a
/// debug line when it starts and one when it ends, request counts, durations, bytes and errors, and a
/// client span whose context travels in the request's headers (the tracer's propagation: W3C
/// `traceparent` with swift-otel).
///
/// Free when unused: ``begin(_:settings:)`` returns nil, and nothing else runs, unless the logger logs
/// at debug level, a metrics backend is set (the session's or a bootstrapped one), or a tracer is (the
/// session's or a bootstrapped one).
struct RequestTelemetry: AttemptObservation {
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
    /// The span's context, as header fields the attempt sends.
    let addedHeaderFields: [(name: String, value: String)]

    /// Starts the telemetry of `attempt`, whose request is read only when something listens (the lean
    /// path on swift-http-types builds one then); a `Logger` in its context replaces the session's.
    static func begin(_ attempt: ObservedAttempt, settings: ObservabilitySettings) -> RequestTelemetry? {
        let own = attempt.context as? Logger
        let configured = own ?? settings.logger
        let logger = configured.logLevel <= .debug ? configured : nil
        // Each system's value read once: every read takes its lock (and finding the tracer casts). The
        // session's factory is unwrapped once: each test of an optional existential copies it.
        let metrics: (any MetricsFactory)?
        if let own = settings.metricsFactory {
            metrics = own
        } else {
            let system = MetricsSystem.factory
            metrics = Self.isExactly(system, NOOPMetricsHandler.self) ? nil : system
        }
        let tracer = settings.tracer ?? Self.systemTracer()
        guard logger != nil || metrics != nil || tracer != nil, let request = attempt.request else { return nil }
        let target = request.url
        let method = request.method
        let methodLabel = Self.methodLabel(method)
        let url = Self.loggable(target, queryValues: settings.logsQueryValues)
        var span: (any Span)?
        var propagated = PropagatedFields()
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
            tracer.inject(started.context, into: &propagated, using: FieldInjector())
            span = started
        }
        var logging = logger
        logging?[metadataKey: "af.request.id"] = "\(attempt.taskIdentifier)"
        let logged = Self.loggableMethod(method)
        logging?.debug("request", metadata: ["http.method": "\(logged)", "url": "\(url)"])
        return RequestTelemetry(logger: logging, metrics: metrics, span: span, method: logged,
                                methodLabel: methodLabel, url: url,
                                started: DispatchTime.now().uptimeNanoseconds, target: target,
                                logsQueryValues: settings.logsQueryValues,
                                credentials: span == nil ? [] : Self.credentialHeaderValues(of: request.headerFields),
                                addedHeaderFields: propagated.fields)
    }

    /// The tracer of `InstrumentationSystem` (a `withTracer` scope's, else the bootstrapped one), or nil
    /// when there is none. Checked first for the no-op instrument the system holds until bootstrapped:
    /// finding its tracer takes the system's lock and two protocol-conformance casts per request.
    static func systemTracer() -> (any Tracer)? {
        guard !isExactly(InstrumentationSystem.instrument, NoOpInstrument.self) else { return nil }
        let tracer = InstrumentationSystem.tracer
        return isExactly(tracer, NoOpTracer.self) ? nil : tracer
    }

    /// Whether `value`'s dynamic type is `type` itself: a comparison of metadata pointers, where `is`
    /// runs the runtime's dynamic cast (about 250 instructions a check). The no-op types are a final
    /// class and structs, so nothing else can be one of them.
    static func isExactly<Value>(_ value: Any, _ type: Value.Type) -> Bool {
        ObjectIdentifier(Swift.type(of: value)) == ObjectIdentifier(type)
    }

    /// Ends the attempt: its status (or error), bytes and duration.
    func attemptDidEnd(_ end: ObservedAttemptEnd) {
        let nanoseconds = Int64(DispatchTime.now().uptimeNanoseconds &- started)
        let error = end.error
        let code = error.map { ($0 as NSError).code }
        let statusClass = error != nil ? "error" : end.statusCode.map { Self.statusClassLabel($0) } ?? "none"
        if let logger {
            var metadata: Logger.Metadata = [
                "http.method": "\(method)", "url": "\(url)", "duration.ms": "\(nanoseconds / 1_000_000)",
                "bytes.sent": "\(end.bytesSent)", "bytes.received": "\(end.bytesReceived)",
            ]
            if let status = end.statusCode { metadata["http.status"] = "\(status)" }
            if let code { metadata["error.code"] = "\(code)" }
            if let sent = end.messagesSent { metadata["messages.sent"] = "\(sent)" }
            if let received = end.messagesReceived { metadata["messages.received"] = "\(received)" }
            logger.debug(error == nil ? "response" : "failure", metadata: metadata)
        }
        if let metrics {
            let dimensions = [("method", methodLabel), ("status_class", statusClass)]
            Counter(label: Self.requestsLabel, dimensions: dimensions, factory: metrics).increment()
            Timer(label: Self.durationLabel, dimensions: dimensions, factory: metrics).recordNanoseconds(nanoseconds)
            Counter(label: Self.sentLabel, dimensions: [("method", methodLabel)], factory: metrics)
                .increment(by: max(0, end.bytesSent))
            Counter(label: Self.receivedLabel, dimensions: [("method", methodLabel)], factory: metrics)
                .increment(by: max(0, end.bytesReceived))
            if let error {
                Counter(label: Self.errorsLabel, dimensions: [("code", Self.errorCodeLabel(error))], factory: metrics).increment()
            }
            if let sent = end.messagesSent {
                Counter(label: Self.messagesLabel, dimensions: [("direction", "sent")], factory: metrics).increment(by: max(0, sent))
            }
            if let received = end.messagesReceived {
                Counter(label: Self.messagesLabel, dimensions: [("direction", "received")], factory: metrics)
                    .increment(by: max(0, received))
            }
        }
        if let span {
            if let sent = end.messagesSent { span.attributes["af.messages.sent"] = sent }
            if let received = end.messagesReceived { span.attributes["af.messages.received"] = received }
            if let status = end.statusCode {
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

    /// Records a session's gauges, if something records metrics.
    static func record(_ gauges: SessionGauges, settings: ObservabilitySettings) {
        guard let factory = settings.metricsFactory ?? (MetricsSystem.factory is NOOPMetricsHandler ? nil : MetricsSystem.factory)
        else { return }
        Gauge(label: connectionsLabel, factory: factory).record(gauges.openConnections)
        Gauge(label: waitingLabel, factory: factory).record(gauges.waitingTasks)
    }

    static let requestsLabel = "af_http_client_requests_total"
    static let durationLabel = "af_http_client_request_duration"
    static let sentLabel = "af_http_client_request_body_bytes_total"
    static let receivedLabel = "af_http_client_response_bytes_total"
    static let errorsLabel = "af_http_client_errors_total"
    /// Data messages over upgraded connections (WebSockets), by direction, counted when each ends.
    static let messagesLabel = "af_http_client_messages_total"
    static let waitingLabel = "af_http_client_waiting_tasks"
    static let connectionsLabel = "af_http_client_open_connections"
}

/// The header fields a span's context travels in.
private struct PropagatedFields {
    var fields: [(name: String, value: String)] = []
}

/// Writes a span's context as header fields.
private struct FieldInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout PropagatedFields) {
        carrier.fields.removeAll { $0.name.lowercased() == key.lowercased() }
        carrier.fields.append((key, value))
    }
}
#endif
