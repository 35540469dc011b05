import AFCore
import AFHTTPTypes
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// A toy observer written against AFProtocols alone: records each attempt's start (its request, as
/// observers see it, and its context) and end, and adds one header field.
private final class RecordingObserver: RequestObserver {
    struct Start: Sendable {
        let taskIdentifier: Int
        let context: String?
        let method: String?
        let url: URL?
        let fields: [String: String]
    }

    private let starts = Protected<[Start]>([])
    private let ends = Protected<[ObservedAttemptEnd]>([])
    /// Fields each observation adds; nil makes the observer watch nothing (without reading the request).
    let adds: [(name: String, value: String)]?

    init(adds: [(name: String, value: String)]?) { self.adds = adds }

    func attemptWillStart(_ attempt: ObservedAttempt) -> (any AttemptObservation)? {
        guard let adds else { return nil }
        let request = attempt.request
        let fields = Dictionary((request?.headerFields ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        starts.withLock {
            $0.append(Start(taskIdentifier: attempt.taskIdentifier, context: attempt.context as? String,
                            method: request?.method, url: request?.url, fields: fields))
        }
        return Observation(addedHeaderFields: adds, ends: ends)
    }

    var recordedStarts: [Start] { starts.withLock { $0 } }
    var recordedEnds: [ObservedAttemptEnd] { ends.withLock { $0 } }

    private struct Observation: AttemptObservation {
        let addedHeaderFields: [(name: String, value: String)]
        let ends: Protected<[ObservedAttemptEnd]>
        func attemptDidEnd(_ end: ObservedAttemptEnd) { ends.withLock { $0.append(end) } }
    }
}

@Suite("The request observer seam: a custom observer on Core's sessions")
struct RequestObserverSeamTests {
    private func manager(observing observer: RecordingObserver) -> URLSessionManager {
        URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: HTTPResponseSerializer(),
                          plugins: SessionPlugins(observer: observer))
    }

    @Test func eachAttemptStartsAndEndsWithItsRequestStatusAndBytes() async throws {
        let observer = RecordingObserver(adds: [("X-Observed", "7")])
        let manager = manager(observing: observer)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: sharedServer.url("/headers"))
        request.httpMethod = "get"
        request.setValue("yes", forHTTPHeaderField: "X-Own")
        let completion = await withCheckedContinuation { (continuation: CheckedContinuation<(Data?, (any Error)?), Never>) in
            let task = manager.dataTask(with: request) { _, object, error in
                continuation.resume(returning: (object as? Data, error))
            }
            task.observationContext = "context of \(task.taskIdentifier)"
            task.resume()
        }
        #expect(completion.1 == nil)
        let echoed = String(decoding: try #require(completion.0), as: UTF8.self)
        // The field the observer added went out with the request.
        #expect(echoed.split(separator: "\n").contains("x-observed: 7"))
        let start = try #require(observer.recordedStarts.first)
        #expect(observer.recordedStarts.count == 1)
        #expect(start.method == "GET")
        #expect(start.url == sharedServer.url("/headers"))
        #expect(start.fields["X-Own"] == "yes")
        #expect(start.context == "context of \(start.taskIdentifier)")
        #expect(await eventually { observer.recordedEnds.count == 1 })
        let end = try #require(observer.recordedEnds.first)
        #expect(end.statusCode == 200)
        #expect(end.error == nil)
        #expect(end.bytesSent == 0)
        #expect(end.bytesReceived == Int64(echoed.utf8.count))
    }

    @Test func aFailedAttemptEndsWithItsErrorAndNoStatus() async throws {
        let observer = RecordingObserver(adds: [])
        let manager = manager(observing: observer)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = URL(string: "http://127.0.0.1:\(closedPort())/x")!
        await #expect(throws: URLError.self) { try await manager.session.data(for: URLRequest(url: url)) }
        let end = try #require(observer.recordedEnds.first)
        #expect(observer.recordedEnds.count == 1)
        #expect(end.statusCode == nil)
        #expect((end.error as? URLError)?.code == .cannotConnectToHost)
        #expect(observer.recordedStarts.map(\.url) == [url])
    }

    @Test func theHTTPTypesPathBuildsARequestOnlyForAnObserverThatReadsIt() async throws {
        // An observer that watches nothing reads nothing: the HTTPRequest goes out as it is.
        let idle = RecordingObserver(adds: nil)
        let quiet = manager(observing: idle)
        defer { quiet.invalidateSession(cancelingTasks: true) }
        let (body, response) = try await quiet.session.data(for: HTTPRequest(method: .get, url: sharedServer.url("/bytes/9")))
        #expect(response.status == .ok)
        #expect(body.count == 9)
        #expect(idle.recordedStarts.isEmpty)

        // One that adds a field sees the request and sends the field.
        let observer = RecordingObserver(adds: [("X-Observed", "lean")])
        let manager = manager(observing: observer)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var request = HTTPRequest(method: .get, url: sharedServer.url("/headers"))
        request.headerFields[HTTPField.Name("X-Own")!] = "fields"
        let (echoed, _) = try await manager.session.data(for: request)
        #expect(String(decoding: echoed, as: UTF8.self).split(separator: "\n").contains("x-observed: lean"))
        #expect(observer.recordedStarts.first?.fields["X-Own"] == "fields")
        #expect(observer.recordedEnds.map(\.statusCode) == [200])
        #expect(observer.recordedEnds.first?.bytesReceived == Int64(echoed.count))
    }

    @Test func theGaugesReachTheObserverAndEndAtZero() async throws {
        let manager = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: HTTPResponseSerializer())
        let gauges = ConnectionGauge(manager)
        _ = try await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/3")))
        #expect(gauges.open == 1)
        manager.invalidateSession(cancelingTasks: true)
        #expect(await eventually { gauges.open == 0 })
    }
}
