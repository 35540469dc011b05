import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFInterceptors
import AFCore
import AFProtocols

/// Records each wait and returns at once: the delays are asserted, not waited for.
final class RecordingRetryClock: RetryClock {
    private let recorded = Protected<[Duration]>([])
    var delays: [Duration] { recorded.withLock { $0 } }
    func sleep(for delay: Duration) async throws { recorded.withLock { $0.append(delay) } }
}

@Suite("RetryPolicy: Alamofire's defaults, backoff, jitter and Retry-After")
struct RetryPolicyTests {
    private let url = URL(string: "http://127.0.0.1/x")!
    private let now = Date(timeIntervalSince1970: 784_111_777)

    private func response(_ status: Int, _ headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    private func decide(_ policy: RetryPolicy, method: String = "GET", status: Int? = 503, headers: [String: String] = [:],
                        error: URLError.Code? = nil, attempt: Int) -> RetryDecision {
        var request = URLRequest(url: url)
        request.httpMethod = method
        let failure = AttemptFailure(error: error.map { URLError($0) }, response: status.map { response($0, headers) })
        return policy.decision(for: request, after: failure, attempt: attempt, now: now)
    }

    @Test func alamofiresDefaults() {
        let policy = RetryPolicy()
        #expect(policy.retryLimit == 2 && policy.exponentialBackoffBase == 2 && policy.exponentialBackoffScale == 0.5)
        #expect(policy.retryableHTTPMethods == ["DELETE", "GET", "HEAD", "OPTIONS", "PUT", "TRACE"])
        #expect(policy.retryableHTTPStatusCodes == [408, 500, 502, 503, 504])
        #expect(policy.retryableURLErrorCodes.count == 18)
        #expect(policy.retryableURLErrorCodes.contains(.timedOut) && !policy.retryableURLErrorCodes.contains(.cancelled))
    }

    @Test func backoffDoublesUpToTheLimit() {
        let policy = RetryPolicy(randomUnit: { 0.5 })  // the jitter's middle: no change
        #expect(decide(policy, attempt: 1) == .retryAfter(.milliseconds(500)))
        #expect(decide(policy, attempt: 2) == .retryAfter(.seconds(1)))
        #expect(decide(policy, attempt: 3) == .doNotRetry)
        let five = RetryPolicy(retryLimit: 5, exponentialBackoffScale: 0.25, randomUnit: { 0.5 })
        #expect(decide(five, attempt: 5) == .retryAfter(.seconds(4)))
    }

    @Test func jitterMovesEachWaitByUpToItsShare() {
        #expect(decide(RetryPolicy(randomUnit: { 0 }), attempt: 1) == .retryAfter(.milliseconds(400)))
        #expect(decide(RetryPolicy(randomUnit: { 1 }), attempt: 1) == .retryAfter(.milliseconds(600)))
        #expect(decide(RetryPolicy(jitter: 0, randomUnit: { 1 }), attempt: 2) == .retryAfter(.seconds(1)))
        #expect(decide(RetryPolicy(exponentialBackoffScale: 0, randomUnit: { 1 }), attempt: 1) == .retry)
    }

    @Test func hugeBackoffsAndOddRandomsStayWithinTheBound() {
        let steep = RetryPolicy(retryLimit: 10_000, exponentialBackoffBase: 1_000, randomUnit: { .nan })
        #expect(decide(steep, attempt: 9_000) == .retryAfter(.seconds(60)))
        #expect(RetryPolicy.clampedDelay(seconds: .nan, maximum: .seconds(60)) == .zero)
        #expect(RetryPolicy.clampedDelay(seconds: .infinity, maximum: .seconds(60)) == .seconds(60))
        #expect(RetryPolicy.clampedDelay(seconds: -.infinity, maximum: .seconds(60)) == .zero)
        #expect(RetryPolicy.clampedDelay(seconds: 1e16, maximum: .milliseconds(1500)) == .milliseconds(1500))
        #expect(RetryPolicy.clampedDelay(seconds: 1.2344, maximum: .seconds(60)) == .milliseconds(1234))
        #expect(RetryPolicy.clampedDelay(seconds: 5, maximum: .seconds(-1)) == .zero)
    }

    @Test func onlyRetryableMethodsStatusesAndErrors() {
        let policy = RetryPolicy(randomUnit: { 0.5 })
        #expect(decide(policy, method: "POST", attempt: 1) == .doNotRetry)
        #expect(decide(policy, method: "put", attempt: 1) == .retryAfter(.milliseconds(500)))
        #expect(decide(policy, status: 404, attempt: 1) == .doNotRetry)
        #expect(decide(policy, status: nil, error: .networkConnectionLost, attempt: 1) == .retryAfter(.milliseconds(500)))
        #expect(decide(policy, status: nil, error: .badURL, attempt: 1) == .doNotRetry)
        #expect(decide(policy, status: nil, attempt: 1) == .doNotRetry)
    }

    @Test func retryAfterLengthensTheWaitWithinTheBound() {
        let policy = RetryPolicy(randomUnit: { 0.5 })
        #expect(decide(policy, headers: ["Retry-After": "3"], attempt: 1) == .retryAfter(.seconds(3)))
        #expect(decide(policy, headers: ["Retry-After": HTTPDate.format(now.addingTimeInterval(10))], attempt: 1)
                == .retryAfter(.seconds(10)))
        #expect(decide(policy, headers: ["Retry-After": "0"], attempt: 2) == .retryAfter(.seconds(1)))
        #expect(decide(policy, headers: ["Retry-After": "86400"], attempt: 1) == .retryAfter(.seconds(60)))
        #expect(decide(policy, headers: ["Retry-After": "soon"], attempt: 1) == .retryAfter(.milliseconds(500)))
        // Issue 25: these trapped (an Int32 conversion of the year; Int64(seconds * 1000) before the cap).
        #expect(decide(policy, headers: ["Retry-After": "Sun, 06 Nov 99999999999 08:49:37 GMT"], attempt: 1)
                == .retryAfter(.milliseconds(500)))
        #expect(decide(policy, headers: ["Retry-After": "Sun, 06 Nov 9999 08:49:37 GMT"], attempt: 1)
                == .retryAfter(.seconds(60)))
        #expect(decide(policy, headers: ["Retry-After": "Sun, 06 Nov 300000000 08:49:37 GMT"], attempt: 1)
                == .retryAfter(.milliseconds(500)))
        #expect(decide(policy, headers: ["Retry-After": "999999999999999999999999"], attempt: 1) == .retryAfter(.seconds(60)))
        var ignoring = policy
        ignoring.honoursRetryAfter = false
        #expect(decide(ignoring, headers: ["Retry-After": "3"], attempt: 1) == .retryAfter(.milliseconds(500)))
    }
}

/// Adds the attempt number as a header (to see that every attempt is adapted).
private struct AttemptHeader: RequestInterceptor {
    let policy: RetryPolicy
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        var request = request
        request.setValue("\(attempt)", forHTTPHeaderField: "X-Attempt")
        return request
    }
    func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision {
        await policy.retry(request, after: failure, attempt: attempt)
    }
}

private struct RefusingAdapter: RequestInterceptor {
    struct Refused: Error {}
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { throw Refused() }
}

private struct FailingRetrier: RequestInterceptor {
    func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision {
        .fail(URLError(.userAuthenticationRequired))
    }
}

@Suite("Interceptors on both paths: attempts, delays and adaptation against a flaky loopback server")
struct InterceptorTests {
    private let policy = RetryPolicy(randomUnit: { 0.5 })

    private func manager(_ clock: RecordingRetryClock) -> URLSessionManager {
        let manager = makeManager()
        manager.updateSettings { $0.retryClock = clock }
        return manager
    }

    @Test func theLeanPathRetriesAndAdaptsEachAttempt() async throws {
        let clock = RecordingRetryClock()
        let key = UUID().uuidString
        let (data, response) = try await manager(clock).session.data(
            for: URLRequest(url: sharedServer.url("/flaky/\(key)/2")), interceptor: AttemptHeader(policy: policy))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "attempt 3 3")
        #expect(clock.delays == [.milliseconds(500), .seconds(1)])
        #expect(sharedServer.requestCount(flaky: key) == 3)
    }

    @Test func afterTheLastRetryTheResponseIsTheAnswer() async throws {
        let clock = RecordingRetryClock()
        let key = UUID().uuidString
        let manager = manager(clock)
        manager.interceptor = policy  // the session's
        let (data, response) = try await manager.session.data(for: URLRequest(url: sharedServer.url("/flaky/\(key)/9?retry-after=2")))
        #expect(response.statusCode == 503)
        #expect(String(decoding: data, as: UTF8.self) == "attempt 3 -")
        #expect(clock.delays == [.seconds(2), .seconds(2)])
        #expect(sharedServer.requestCount(flaky: key) == 3)
    }

    @Test func theManagersTaskRetriesAndCompletesOnce() async {
        let clock = RecordingRetryClock()
        let key = UUID().uuidString
        let manager = manager(clock)
        manager.interceptor = AttemptHeader(policy: policy)
        let completions = Protected(0)
        var hooks = manager.hooks
        hooks.taskDidComplete = { _, _ in completions.withLock { $0 += 1 } }
        manager.hooks = hooks
        let made = Protected<SessionDataTask?>(nil)
        let result = await complete(manager, URLRequest(url: sharedServer.url("/flaky/\(key)/2")),
                                    body: { task in made.withLock { $0 = task } })
        #expect(result.error == nil)
        #expect(String(decoding: result.object as? Data ?? Data(), as: UTF8.self) == "attempt 3 3")
        #expect(made.withLock { $0 }?.attempt == 3)
        #expect(completions.withLock { $0 } == 1)
        #expect(clock.delays == [.milliseconds(500), .seconds(1)])
    }

    @Test func aTasksOwnInterceptorReplacesTheSessions() async {
        let clock = RecordingRetryClock()
        let key = UUID().uuidString
        let manager = manager(clock)
        manager.interceptor = policy
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Completion, Never>) in
            let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/flaky/\(key)/1"))) { response, object, error in
                continuation.resume(returning: Completion(response: response as? HTTPURLResponse, object: object, error: error))
            }
            task.interceptor = FailingRetrier()
            task.resume()
        }
        #expect(result.urlErrorCode == NSURLErrorUserAuthenticationRequired)
        #expect(sharedServer.requestCount(flaky: key) == 1)
        #expect(clock.delays.isEmpty)
    }

    @Test func anAdaptersErrorEndsTheTaskBeforeAnythingIsSent() async throws {
        let key = UUID().uuidString
        let manager = makeManager()
        manager.interceptor = RefusingAdapter()
        let result = await complete(manager, URLRequest(url: sharedServer.url("/flaky/\(key)/0")))
        #expect(result.error is RefusingAdapter.Refused)
        await #expect(throws: RefusingAdapter.Refused.self) {
            _ = try await manager.session.data(for: URLRequest(url: sharedServer.url("/flaky/\(key)/0")))
        }
        #expect(sharedServer.requestCount(flaky: key) == 0)
    }

    @Test func cancellingDuringADelayedRetryEndsWithCancelled() async {
        let key = UUID().uuidString
        let manager = makeManager()
        manager.interceptor = RetryPolicy(exponentialBackoffScale: 30, randomUnit: { 0.5 })  // real 30 s wait
        let codes = Protected<[Int]>([])
        let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/flaky/\(key)/5"))) { _, _, error in
            codes.withLock { $0.append((error as NSError?)?.code ?? 0) }
        }
        task.resume()
        #expect(await eventually { sharedServer.requestCount(flaky: key) == 1 })
        try? await Task.sleep(for: .milliseconds(100))
        #expect(task.state == .running)
        task.cancel()
        #expect(await eventually(5) { codes.withLock { $0 } == [NSURLErrorCancelled] })
        #expect(sharedServer.requestCount(flaky: key) == 1)
    }
}
