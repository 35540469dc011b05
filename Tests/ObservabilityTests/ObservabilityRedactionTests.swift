import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import InMemoryLogging
import InMemoryTracing
import Logging
import Testing
import Tracing
import AFNetworking
@testable import AFObservability

/// Everything a finished span carries, as text: its name, attributes, events, recorded errors (their
/// descriptions, userInfo and attributes) and status.
func everything(in span: FinishedInMemorySpan) -> String {
    var parts = [span.operationName]
    span.attributes.forEach { key, value in parts.append("\(key)=\(value)") }
    for event in span.events {
        parts.append(event.name)
        event.attributes.forEach { key, value in parts.append("\(key)=\(value)") }
    }
    for recorded in span.errors {
        let error = recorded.error as NSError
        parts += [String(describing: recorded.error), String(reflecting: recorded.error), error.localizedDescription,
                  error.localizedFailureReason ?? "", "\(error.userInfo)"]
        recorded.attributes.forEach { key, value in parts.append("\(key)=\(value)") }
    }
    parts.append(String(describing: span.status))
    return parts.joined(separator: "\n")
}

@Suite("Observability: no credentials or query values in spans and log lines")
struct ObservabilityRedactionTests {
    /// The credentials of the failing request below: none may be reported.
    static let secrets = ["alice-user", "pw-Secret-4711", "QueryToken-99", "AuthToken-123", "CookieValue-456",
                          "ProxyCred-789"]

    @Test func aFailedRequestsSpanAndLogLinesCarryNoCredentialsOrQueryValues() async throws {
        let tracer = InMemoryTracer()
        let handler = InMemoryLogHandler()
        let manager = observedManager(logs: handler, tracer: tracer)
        let port = closedPort()
        var request = URLRequest(url: URL(string:
            "http://alice-user:pw-Secret-4711@127.0.0.1:\(port)/private?token=QueryToken-99&page=3")!)
        request.setValue("Bearer AuthToken-123", forHTTPHeaderField: "Authorization")
        request.setValue("session=CookieValue-456", forHTTPHeaderField: "Cookie")
        request.setValue("Basic ProxyCred-789", forHTTPHeaderField: "Proxy-Authorization")
        let result = await complete(manager, request)
        #expect(result.urlErrorCode == NSURLErrorCannotConnectToHost)

        let loggable = "http://127.0.0.1:\(port)/private?token=…&page=…"
        let spans = tracer.finishedSpans
        try #require(spans.count == 1)
        let span = spans[0]
        #expect(span.attributes["url.full"]?.toSpanAttribute() == "\(loggable)".toSpanAttribute())
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "\(NSURLErrorCannotConnectToHost)".toSpanAttribute())
        #expect(span.status?.code == .error)
        try #require(span.errors.count == 1)
        let recorded = span.errors[0].error as NSError
        #expect(recorded.domain == NSURLErrorDomain)
        #expect(recorded.code == NSURLErrorCannotConnectToHost)
        #expect(recorded.userInfo["NSErrorFailingURLStringKey"] as? String == loggable)
        #expect(recorded.localizedDescription == "Could not connect to the server.")
        let traced = everything(in: span)
        #expect(Self.secrets.filter { traced.contains($0) } == [])

        let entries = handler.entries
        #expect(entries.map(\.message.description) == ["request", "failure"])
        #expect(entries.map { $0.metadata["url"] } == [.string(loggable), .string(loggable)])
        #expect(entries[1].metadata["error.code"] == "\(NSURLErrorCannotConnectToHost)")
        let logged = entries.map { "\($0)" }.joined(separator: "\n")
        #expect(Self.secrets.filter { logged.contains($0) } == [])
    }

    @Test func aRecordedErrorKeepsItsCodeAndScrubbedTextAndNothingElse() throws {
        let request = URL(string: "https://alice-user:pw-Secret-4711@api.example/v1/items?token=QueryToken-99&page=3")!
        let redirected = URL(string: "https://cdn.example/file?sig=Signature-555&n=1")!
        var headers = URLRequest(url: request)
        headers.setValue("Bearer AuthToken-123", forHTTPHeaderField: "Authorization")
        headers.setValue("a=1; session=CookieValue-456", forHTTPHeaderField: "Cookie")
        headers.setValue("Basic ProxyCred-789", forHTTPHeaderField: "Proxy-Authorization")
        headers.setValue("text/plain", forHTTPHeaderField: "Accept")
        let underlying = NSError(domain: "inner", code: 1, userInfo: [NSLocalizedDescriptionKey: "pw-Secret-4711"])
        let error = URLError(.timedOut, userInfo: [
            NSURLErrorFailingURLErrorKey: redirected, "NSErrorFailingURLStringKey": redirected.absoluteString,
            NSLocalizedDescriptionKey: "Timed out loading \(redirected.absoluteString) after \(request.absoluteString)",
            NSLocalizedFailureReasonErrorKey: "sent Bearer AuthToken-123, session=CookieValue-456, pw-Secret-4711, ProxyCred-789",
            NSUnderlyingErrorKey: underlying,
        ])
        let credentials = RequestTelemetry.credentialHeaderValues(
            of: (headers.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) })
        #expect(Set(credentials) == ["Bearer AuthToken-123", "AuthToken-123", "a=1; session=CookieValue-456", "1",
                                     "CookieValue-456", "Basic ProxyCred-789", "ProxyCred-789"])
        let recorded = RequestTelemetry.recordable(error, request: request, secrets: credentials, queryValues: false)
        let nsError = recorded as NSError
        #expect(recorded is URLError)
        #expect(nsError.domain == NSURLErrorDomain)
        #expect(nsError.code == NSURLErrorTimedOut)
        #expect(nsError.localizedDescription
                == "Timed out loading https://cdn.example/file?sig=…&n=… after https://api.example/v1/items?token=…&page=…")
        #expect(nsError.localizedFailureReason == "sent …, session=…, …, …")
        #expect(nsError.userInfo["NSErrorFailingURLStringKey"] as? String == "https://cdn.example/file?sig=…&n=…")
        #expect(Set(nsError.userInfo.keys)
                == [NSLocalizedDescriptionKey, NSLocalizedFailureReasonErrorKey, "NSErrorFailingURLStringKey"])
        let text = "\(recorded) \(String(reflecting: recorded)) \(nsError.userInfo)"
        #expect((Self.secrets + ["Signature-555"]).filter { text.contains($0) } == [])

        // Another domain stays in it; with query values kept, only credentials go.
        let other = NSError(domain: "custom", code: 7, userInfo: [NSLocalizedDescriptionKey: "no \(request.absoluteString)"])
        let kept = RequestTelemetry.recordable(other, request: request, secrets: [], queryValues: true) as NSError
        #expect(kept.domain == "custom")
        #expect(kept.code == 7)
        #expect(kept.localizedDescription == "no https://api.example/v1/items?token=QueryToken-99&page=3")
    }
}
