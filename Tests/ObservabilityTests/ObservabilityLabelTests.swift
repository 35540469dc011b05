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

/// Answers the host `codes.test` with any code: `/fail/N` fails with an error of its own domain whose
/// code is N, `/status/N` answers with status N (sets of codes as large as the caller likes).
final class CodesURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "codes.test" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        let url = request.url!
        let code = Int(url.lastPathComponent) ?? 0
        guard url.path.hasPrefix("/status/") else {
            return client!.urlProtocol(self, didFailWithError: NSError(domain: "com.example.custom", code: code))
        }
        let response = HTTPURLResponse(url: url, statusCode: code, httpVersion: "HTTP/1.1", headerFields: [:])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}

@Suite("Observability: metric labels and span names come from bounded sets")
struct ObservabilityLabelTests {
    /// The values of `key` in the dimensions of `label`'s counters.
    private func labels(_ metrics: TestMetrics, _ label: String, _ key: String) -> [String] {
        metrics.counters(label: label).compactMap { counter in counter.dimensions.first { $0.0 == key }?.1 }.sorted()
    }

    @Test func aWebSocketsMessagesAreCountedByDirectionWhenItEnds() throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        var settings = ObservabilitySettings()
        settings.metricsFactory = metrics
        settings.tracer = tracer
        let url = URL(string: "http://127.0.0.1:9/echo")!
        let attempt = ObservedAttempt(taskIdentifier: 7, context: nil,
                                      request: { ObservedRequest(method: "GET", url: url, headerFields: []) })
        let observation = try #require(settings.attemptWillStart(attempt))
        observation.attemptDidEnd(ObservedAttemptEnd(statusCode: 101, error: nil, bytesSent: 400, bytesReceived: 900,
                                                     messagesSent: 3, messagesReceived: 5))
        let counters = metrics.counters(label: RequestTelemetry.messagesLabel)
        let byDirection = Dictionary(uniqueKeysWithValues: counters.map { counter in
            (counter.dimensions.first { $0.0 == "direction" }?.1 ?? "?", counter.totalValue)
        })
        #expect(byDirection == ["sent": 3, "received": 5])
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes["af.messages.sent"]?.toSpanAttribute() == 3)
        #expect(span.attributes["af.messages.received"]?.toSpanAttribute() == 5)

        // A request (no message counts) adds no message series.
        let plain = try #require(settings.attemptWillStart(attempt))
        plain.attemptDidEnd(ObservedAttemptEnd(statusCode: 200, error: nil, bytesSent: 0, bytesReceived: 10))
        #expect(metrics.counters(label: RequestTelemetry.messagesLabel).count == 2)
        #expect(tracer.finishedSpans.count == 2 && tracer.finishedSpans[1].attributes["af.messages.sent"] == nil)
    }

    @Test func madeUpMethodsFoldIntoOneOtherSeriesAndSpanName() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let handler = InMemoryLogHandler()
        let manager = observedManager(logs: handler, tracer: tracer, metrics: metrics)
        let url = URL(string: "http://127.0.0.1:\(closedPort())/")!
        let madeUp = (0..<50).map { "made\($0)" }
        let long = String(repeating: "L", count: 100)
        for method in madeUp + [long, "get", "patch", "DELETE"] {
            var request = URLRequest(url: url)
            request.httpMethod = method
            let result = await complete(manager, request)
            #expect(result.urlErrorCode == NSURLErrorCannotConnectToHost)
        }

        // Metrics: one _OTHER series per metric, known methods by name (uppercased, as sent).
        let methods = ["DELETE", "GET", "PATCH", "_OTHER"]
        #expect(labels(metrics, RequestTelemetry.requestsLabel, "method") == methods)
        #expect(labels(metrics, RequestTelemetry.sentLabel, "method") == methods)
        #expect(labels(metrics, RequestTelemetry.receivedLabel, "method") == methods)
        #expect(metrics.timers.filter { $0.label == RequestTelemetry.durationLabel }
            .compactMap { timer in timer.dimensions.first { $0.0 == "method" }?.1 }.sorted() == methods)
        #expect(metrics.counterTotal(label: RequestTelemetry.requestsLabel,
                                     dimensions: [("method", "_OTHER"), ("status_class", "error")]) == 51)
        #expect(metrics.counterTotal(label: RequestTelemetry.requestsLabel,
                                     dimensions: [("method", "GET"), ("status_class", "error")]) == 1)

        // Spans: named HTTP (OpenTelemetry's name for an unknown method), http.request.method _OTHER,
        // the method sent in http.request.method_original, its first 64 bytes.
        let spans = tracer.finishedSpans
        #expect(spans.count == 54)
        #expect(Set(spans.map(\.operationName)) == ["HTTP", "GET", "PATCH", "DELETE"])
        let other = spans.filter { $0.operationName == "HTTP" }
        #expect(other.count == 51)
        #expect(other.allSatisfy { $0.attributes["http.request.method"]?.toSpanAttribute() == "_OTHER" })
        let originals = other.compactMap { span -> String? in
            guard case .string(let value) = span.attributes["http.request.method_original"]?.toSpanAttribute() else { return nil }
            return value
        }
        #expect(Set(originals) == Set(madeUp.map { $0.uppercased() } + [String(repeating: "L", count: 64)]))
        let known = spans.filter { $0.operationName != "HTTP" }
        #expect(known.map { $0.attributes["http.request.method"]?.toSpanAttribute() }.compactMap { $0 }.count == 3)
        #expect(known.allSatisfy { $0.attributes["http.request.method"]?.toSpanAttribute() == .string($0.operationName) })
        #expect(known.allSatisfy { $0.attributes["http.request.method_original"] == nil })

        // Log lines keep the method as sent.
        #expect(handler.entries.filter { $0.message == "request" }.compactMap { $0.metadata["http.method"]?.description }
            .prefix(2) == ["MADE0", "MADE1"])
    }

    @Test func errorCodesOfOtherDomainsAndOddStatusesFoldIntoOneSeries() async {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let manager = makeManager { $0.protocolClasses = [CodesURLProtocol.self] }
        manager.updateSettings {
            $0.observability.metricsFactory = metrics
            $0.observability.tracer = tracer
        }
        for code in 1...50 {
            let result = await complete(manager, URLRequest(url: URL(string: "http://codes.test/fail/\(code)")!))
            #expect((result.error as NSError?)?.domain == "com.example.custom")
        }
        for status in [0, 99, 200, 404, 600, 999, 12345] {
            let result = await complete(manager, URLRequest(url: URL(string: "http://codes.test/status/\(status)")!))
            #expect(result.response?.statusCode == status)
        }
        #expect(labels(metrics, RequestTelemetry.requestsLabel, "status_class") == ["2xx", "4xx", "_OTHER", "error"])
        #expect(metrics.counterTotal(label: RequestTelemetry.requestsLabel,
                                     dimensions: [("method", "GET"), ("status_class", "_OTHER")]) == 5)
        _ = await complete(manager, URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!))
        #expect(labels(metrics, RequestTelemetry.errorsLabel, "code") == ["-1004", "_OTHER"])
        #expect(metrics.counterTotal(label: RequestTelemetry.errorsLabel, dimensions: [("code", "_OTHER")]) == 50)
        #expect(Set(tracer.finishedSpans.compactMap { span -> String? in
            guard case .string(let value) = span.attributes["error.type"]?.toSpanAttribute() else { return nil }
            return value
        }) == ["_OTHER", "-1004"])
    }

    @Test func aMethodThatIsNotATokenCannotSplitALogLine() async {
        let handler = InMemoryLogHandler()
        let tracer = InMemoryTracer()
        let manager = observedManager(logs: handler, tracer: tracer)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!)
        request.httpMethod = "get\r\nforged: line"
        let result = await complete(manager, request)
        #expect((result.error as? InvalidRequestError)?.reason == .invalidMethod("get\r\nforged: line"))
        #expect(handler.entries.map(\.message.description) == ["request", "failure"])
        #expect(handler.entries.map { $0.metadata["http.method"] } == [#""GET\r\nFORGED: LINE""#, #""GET\r\nFORGED: LINE""#])
        #expect(tracer.finishedSpans.map(\.operationName) == ["HTTP"])
    }

    @Test func theBoundsExactly() {
        #expect(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]
            .map(RequestTelemetry.methodLabel) == ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"])
        #expect(["PURGE", "PROPFIND", "get", ""].map(RequestTelemetry.methodLabel) == ["_OTHER", "_OTHER", "_OTHER", "_OTHER"])
        // 64 bytes of whole scalars: 32 two-byte É, then nothing of the 33rd; 63 ASCII and no half of a 2-byte one.
        #expect(RequestTelemetry.boundedOriginalMethod(String(repeating: "É", count: 40)) == String(repeating: "É", count: 32))
        #expect(RequestTelemetry.boundedOriginalMethod(String(repeating: "A", count: 63) + "ÉB")
                == String(repeating: "A", count: 63))
        #expect(RequestTelemetry.boundedOriginalMethod("PURGE") == "PURGE")
        #expect(RequestTelemetry.loggableMethod("PURGE") == "PURGE")
        #expect(RequestTelemetry.loggableMethod("A B\n") == #""A B\n""#)
        #expect(RequestTelemetry.errorCodeLabel(URLError(.timedOut)) == "-1001")
        #expect(RequestTelemetry.errorCodeLabel(URLError(.cannotMoveFile)) == "-3005")
        #expect(RequestTelemetry.errorCodeLabel(InvalidRequestError(.invalidMethod("A B"), url: nil)) == "1")
        #expect(RequestTelemetry.errorCodeLabel(NSError(domain: NSURLErrorDomain, code: 5)) == "_OTHER")
        #expect(RequestTelemetry.errorCodeLabel(NSError(domain: NSURLErrorDomain, code: -4000)) == "_OTHER")
        #expect(RequestTelemetry.errorCodeLabel(NSError(domain: "custom", code: -1001)) == "_OTHER")
        #expect([0, 99, 100, 199, 200, 404, 599, 600, 999].map(RequestTelemetry.statusClassLabel)
                == ["_OTHER", "_OTHER", "1xx", "1xx", "2xx", "4xx", "5xx", "_OTHER", "_OTHER"])
    }
}

/// A manager whose debug log lines go to `handler` and whose spans go to `tracer` (and metrics to `metrics`).
func observedManager(logs handler: InMemoryLogHandler, tracer: InMemoryTracer, metrics: TestMetrics? = nil) -> URLSessionManager {
    let manager = makeManager()
    var logger = Logger(label: "test", factory: { _ in handler })
    logger.logLevel = .debug
    manager.logger = logger
    manager.updateSettings {
        $0.observability.tracer = tracer
        if let metrics { $0.observability.metricsFactory = metrics }
    }
    return manager
}
