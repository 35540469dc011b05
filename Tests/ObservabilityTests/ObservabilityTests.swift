import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing
import AFNetworking
@testable import AFObservability

@Suite("Observability: swift-log, swift-metrics and swift-distributed-tracing, with in-memory backends")
struct ObservabilityTests {
    private func debugLogger(_ handler: InMemoryLogHandler) -> Logger {
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = .debug
        return logger
    }

    @Test func requestAndResponseLinesWithoutCredentialsOrQueryValues() async throws {
        let handler = InMemoryLogHandler()
        let manager = makeManager()
        manager.logger = debugLogger(handler)
        var components = URLComponents(url: sharedServer.url("/bytes/7"), resolvingAgainstBaseURL: false)!
        components.user = "user"
        components.password = "secret"
        components.query = "token=abc&page=2"
        let result = await complete(manager, URLRequest(url: components.url!))
        #expect(result.error == nil)
        let entries = handler.entries
        #expect(entries.map(\.message.description) == ["request", "response"])
        #expect(entries.allSatisfy { $0.level == .debug })
        let logged = "http://127.0.0.1:\(sharedServer.port)/bytes/7?token=…&page=…"
        #expect(entries[0].metadata["url"] == "\(logged)")
        #expect(entries[0].metadata["http.method"] == "GET")
        #expect(entries[1].metadata["http.status"] == "200")
        #expect(entries[1].metadata["bytes.received"] == "7")
        #expect(entries[1].metadata["af.request.id"] == entries[0].metadata["af.request.id"])
        #expect(entries[1].metadata["duration.ms"] != nil)
        #expect(!entries.contains { "\($0.metadata)".contains("secret") || "\($0.metadata)".contains("abc") })
    }

    @Test func theSystemsTracerIsUsedWhenTheSessionHasNone() async throws {
        let manager = makeManager()  // no tracer, logger or metrics factory of its own
        #expect(RequestTelemetry.systemTracer() == nil)
        #expect(await complete(manager, URLRequest(url: sharedServer.url("/bytes/3"))).error == nil)
        let tracer = InMemoryTracer()
        let inScope = await withTracer(tracer) {
            #expect(RequestTelemetry.systemTracer() is InMemoryTracer)
            return await complete(manager, URLRequest(url: sharedServer.url("/bytes/5")))
        }
        #expect(inScope.error == nil)
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["GET"])
        guard case .string(let url) = spans.first?.attributes["url.full"]?.toSpanAttribute() else {
            Issue.record("no url.full attribute")
            return
        }
        #expect(url.hasSuffix("/bytes/5"))
    }

    @Test func aTasksOwnLoggerReplacesTheSessionsAndFailuresAreLogged() async {
        let sessionHandler = InMemoryLogHandler()
        let taskHandler = InMemoryLogHandler()
        let manager = makeManager()
        manager.logger = debugLogger(sessionHandler)
        manager.updateSettings { $0.observability.logsQueryValues = true }
        let result = await complete(manager, URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/x?q=1")!),
                                    body: { _ in })
        #expect(result.urlErrorCode == NSURLErrorCannotConnectToHost)
        #expect(sessionHandler.entries.map(\.message.description) == ["request", "failure"])
        #expect(sessionHandler.entries[1].metadata["error.code"] == "\(NSURLErrorCannotConnectToHost)")
        #expect(sessionHandler.entries[0].metadata["url"]?.description.hasSuffix("/x?q=1") == true)

        let own: Completion = await withCheckedContinuation { continuation in
            let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1"))) { response, object, error in
                continuation.resume(returning: Completion(response: response as? HTTPURLResponse, object: object, error: error))
            }
            task.logger = debugLogger(taskHandler)
            task.resume()
        }
        #expect(own.error == nil)
        #expect(taskHandler.entries.map(\.message.description) == ["request", "response"])
        #expect(sessionHandler.entries.count == 2)
    }

    @Test func metricsCountRequestsDurationsBytesAndErrors() async {
        let metrics = TestMetrics()
        let manager = makeManager()
        manager.updateSettings { $0.observability.metricsFactory = metrics }
        _ = await complete(manager, URLRequest(url: sharedServer.url("/bytes/10")))
        _ = await complete(manager, URLRequest(url: sharedServer.url("/status/503")))
        _ = await complete(manager, URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!))
        let (data, _) = try! await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/5")))
        #expect(data.count == 5)
        #expect(metrics.counterTotal(label: RequestTelemetry.requestsLabel, dimensions: [("method", "GET"), ("status_class", "2xx")]) == 2)
        #expect(metrics.counterTotal(label: RequestTelemetry.requestsLabel, dimensions: [("method", "GET"), ("status_class", "5xx")]) == 1)
        #expect(metrics.counterTotal(label: RequestTelemetry.requestsLabel, dimensions: [("method", "GET"), ("status_class", "error")]) == 1)
        #expect(metrics.counterTotal(label: RequestTelemetry.errorsLabel, dimensions: [("code", "\(NSURLErrorCannotConnectToHost)")]) == 1)
        #expect(metrics.counterTotal(label: RequestTelemetry.receivedLabel, dimensions: [("method", "GET")]) == 15)
        #expect((try? metrics.expectTimer(RequestTelemetry.durationLabel, [("method", "GET"), ("status_class", "2xx")]))?.values.count == 2)
    }

    @Test func gaugesFollowOpenConnectionsAndWaitingTasks() async {
        let metrics = TestMetrics()
        let manager = makeManager { $0.httpMaximumConnectionsPerHost = 1 }
        manager.updateSettings { $0.observability.metricsFactory = metrics }
        func gauge(_ label: String) -> Double? { (try? metrics.expectGauge(label))?.lastValue }
        let holder = manager.dataTask(with: URLRequest(url: sharedServer.url("/stall")), completionHandler: nil)
        holder.resume()
        #expect(await eventually { gauge(RequestTelemetry.connectionsLabel) == 1 })
        let waiting = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1")), completionHandler: nil)
        waiting.resume()
        #expect(await eventually { gauge(RequestTelemetry.waitingLabel) == 1 })
        holder.cancel()
        #expect(await eventually { waiting.state == .completed })
        #expect(await eventually { gauge(RequestTelemetry.waitingLabel) == 0 })
        #expect(gauge(RequestTelemetry.connectionsLabel) == 1)  // the stalled connection closed, a new one opened
        manager.invalidateSession(cancelingTasks: true)
        #expect(await eventually { gauge(RequestTelemetry.connectionsLabel) == 0 })
    }

    @Test func aClientSpanPerRequestWithItsContextInTheHeaders() async throws {
        let tracer = InMemoryTracer()
        let manager = makeManager()
        manager.updateSettings { $0.observability.tracer = tracer }
        let parent = tracer.startSpan("caller")
        let (data, _) = try await ServiceContext.withValue(parent.context) {
            try await manager.session.data(for: URLRequest(url: sharedServer.url("/headers")))
        }
        parent.end()
        let echoed = String(decoding: data, as: UTF8.self)
        let spans = tracer.finishedSpans.filter { $0.operationName == "GET" }
        try #require(spans.count == 1)
        let span = spans[0]
        #expect(span.kind == .client)
        #expect(span.parentSpanID == parent.context.inMemorySpanContext?.spanID)
        #expect(span.traceID == parent.context.inMemorySpanContext?.traceID)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
        // The span's context went out with the request (InMemoryTracer's keys; swift-otel's are W3C's
        // traceparent).
        #expect(echoed.contains("in-memory-span-id: \(span.spanID)"))
        #expect(echoed.contains("in-memory-trace-id: \(span.traceID)"))
    }

    @Test func nothingIsReportedWithoutABackend() async {
        let manager = makeManager()
        let task = Protected<SessionDataTask?>(nil)
        _ = await complete(manager, URLRequest(url: sharedServer.url("/bytes/1")), body: { made in
            task.withLock { $0 = made }
        })
        #expect(task.withLock { $0 }?.currentRequest?.allHTTPHeaderFields?.isEmpty ?? true)
        // The standard observer watches nothing then, without reading the request.
        let read = Protected(false)
        let attempt = ObservedAttempt(taskIdentifier: 1, context: nil, request: {
            read.withLock { $0 = true }
            return ObservedRequest(method: "GET", url: sharedServer.url("/bytes/1"), headerFields: [])
        })
        #expect(ObservabilitySettings().attemptWillStart(attempt) == nil)
        #expect(read.withLock { $0 } == false)
    }
}
