// Retries against the fault server (issue 25, items 3 and 7): every retry path ends, on every API, and
// an interceptor judges the request the attempt sent on its first hop, not a redirect's.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// Returns at once, recording nothing: retries are judged, not waited for.
private struct ImmediateRetryClock: RetryClock {
    func sleep(for delay: Duration) async throws {}
}

private struct BearerToken: AuthenticationCredential {
    let value: String
    var requiresRefresh: Bool { false }
}

/// Bearer tokens numbered by refresh; counts the requests it signed and the refreshes it made.
private final class CountingBearerAuthenticator: Authenticator, Sendable {
    let signed = Mutex(0)
    let refreshes = Mutex(0)

    func apply(_ credential: BearerToken, to request: inout URLRequest) {
        signed.withLock { $0 += 1 }
        request.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: BearerToken) async throws -> BearerToken {
        BearerToken(value: "token-\(refreshes.withLock { $0 += 1; return $0 })")
    }

    func isRequest(_ request: URLRequest, authenticatedWith credential: BearerToken) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

/// Asks for another attempt after every failure.
private struct AlwaysRetry: RequestInterceptor {
    func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision { .retry }
}

@Suite("Core: every retry path is bounded and judges the request it sent")
struct CoreRetryBoundsTests {
    private func manager() -> HTTPSessionManager {
        let manager = coreManager()
        manager.updateSettings { $0.retryClock = ImmediateRetryClock() }
        return manager
    }

    /// Runs `task` to completion, cancelling it after `seconds` (a retry loop that never ends then
    /// completes with -999, which the caller's expectations reject).
    private func complete(_ make: (@escaping @Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void) -> SessionTask,
                          within seconds: Double = 20) async -> (result: CoreResult, attempts: Int) {
        let started = Mutex<SessionTask?>(nil)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(seconds))
            started.withLock { $0 }?.cancel()
        }
        let result = await runTask { handler in
            let task = make(handler)
            started.withLock { $0 = task }
            return task
        }
        watchdog.cancel()
        return (result, started.withLock { $0 }?.attempt ?? 0)
    }

    /// A first origin redirects to a second that answers 401. The hop to the second origin drops the
    /// Authorization the interceptor added, so judging that hop's request said "refused with an older
    /// credential: retry without refreshing", forever (about 2,600 requests to each origin in 5 s, and
    /// the task never completed). Judged on what the first hop sent, each 401 refreshes, and the
    /// interceptor's window ends it: 5 refreshes, 6 attempts, `excessiveRefresh`, on both APIs.
    @Test func anAuthenticationRetryAcrossARedirectToAnotherOriginEnds() async throws {
        let servers = try await IntegrationServers.shared()
        let refusing = servers.nginx.httpURL("/hostile/basic-auth?user=u&pass=p")
        let redirecting = hostileURL(servers.faultServer.baseURL, "/hostile/redirect", ["to": refusing.absoluteString])

        let authenticator = CountingBearerAuthenticator()
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: BearerToken(value: "token-0"))
        let manager = manager()
        let (result, attempts) = await complete { handler in
            let task = manager.dataTask(with: URLRequest(url: redirecting), completionHandler: handler)
            task.interceptor = interceptor
            return task
        }
        #expect(result.error as? AuthenticationError == .excessiveRefresh)
        #expect(attempts == 6)
        #expect(authenticator.refreshes.withLock { $0 } == 5)
        #expect(authenticator.signed.withLock { $0 } == 6)

        let leanAuthenticator = CountingBearerAuthenticator()
        let leanInterceptor = AuthenticationInterceptor(authenticator: leanAuthenticator,
                                                        credential: BearerToken(value: "token-0"))
        do {
            _ = try await manager.session.data(for: URLRequest(url: redirecting), interceptor: leanInterceptor)
            Issue.record("the lean call succeeded")
        } catch {
            #expect(error as? AuthenticationError == .excessiveRefresh)
        }
        #expect(leanAuthenticator.refreshes.withLock { $0 } == 5)
        #expect(leanAuthenticator.signed.withLock { $0 } == 6)
    }

    /// An interceptor that always asks again is cut off at `TransferLimits.maximumAttempts`: the last
    /// attempt's 503 is the answer, on a manager task and on the lean path.
    @Test func anInterceptorThatAlwaysRetriesStopsAtTheAttemptBound() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = manager()
        manager.transferLimits.maximumAttempts = 4
        manager.interceptor = AlwaysRetry()
        let taskKey = UUID().uuidString
        let (result, attempts) = await complete { handler in
            manager.dataTask(with: URLRequest(url: hostileURL(servers.faultServer.baseURL, "/hostile/flaky",
                                                              ["key": taskKey, "failures": "1000"])),
                             completionHandler: handler)
        }
        #expect(result.response?.statusCode == 503)
        #expect(attempts == 4)
        #expect(try await flakyCount(taskKey, servers) == 4)

        let leanKey = UUID().uuidString
        let (data, response) = try await manager.session.data(for: URLRequest(url: hostileURL(
            servers.faultServer.baseURL, "/hostile/flaky", ["key": leanKey, "failures": "1000"])))
        #expect(response.statusCode == 503 && data == Data("attempt 4".utf8))
        #expect(try await flakyCount(leanKey, servers) == 4)

        manager.transferLimits = TransferLimits()
        #expect(manager.transferLimits.maximumAttempts == 10)
        let defaultKey = UUID().uuidString
        _ = try await manager.session.data(for: URLRequest(url: hostileURL(
            servers.faultServer.baseURL, "/hostile/flaky", ["key": defaultKey, "failures": "1000"])))
        #expect(try await flakyCount(defaultKey, servers) == 10)
    }

    /// A POST answered 302 (followed as a GET) and then 503 is judged as the POST it was: RetryPolicy
    /// does not send it again (it was sent three times).
    @Test func aRedirectedPostIsJudgedAsThePostThatWasSent() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = manager()
        manager.interceptor = RetryPolicy(randomUnit: { 0.5 })
        let key = UUID().uuidString
        let failing = hostileURL(servers.faultServer.baseURL, "/hostile/flaky", ["key": key, "failures": "1000"])
        var post = URLRequest(url: hostileURL(servers.faultServer.baseURL, "/hostile/redirect", ["to": failing.absoluteString]))
        post.httpMethod = "POST"
        post.httpBody = Data("a=1".utf8)
        let (result, attempts) = await complete { manager.dataTask(with: post, completionHandler: $0) }
        #expect(result.response?.statusCode == 503)
        #expect(attempts == 1)
        #expect(try await flakyCount(key, servers) == 1)

        // A GET through the same redirect is retried twice (RetryPolicy's default).
        let getKey = UUID().uuidString
        let getFailing = hostileURL(servers.faultServer.baseURL, "/hostile/flaky", ["key": getKey, "failures": "1000"])
        let get = URLRequest(url: hostileURL(servers.faultServer.baseURL, "/hostile/redirect", ["to": getFailing.absoluteString]))
        let (_, getAttempts) = await complete { manager.dataTask(with: get, completionHandler: $0) }
        #expect(getAttempts == 3)
        #expect(try await flakyCount(getKey, servers) == 3)
    }

    /// A lean upload whose request keeps the default method goes out as POST, and is judged as POST.
    @Test func aLeanUploadWithTheDefaultMethodIsJudgedAsThePostItSent() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = manager()
        let key = UUID().uuidString
        let url = hostileURL(servers.faultServer.baseURL, "/hostile/flaky", ["key": key, "failures": "1000"])
        let (_, response) = try await manager.session.upload(for: URLRequest(url: url), from: Data("body".utf8),
                                                            interceptor: RetryPolicy(randomUnit: { 0.5 }))
        #expect(response.statusCode == 503)
        #expect(try await flakyCount(key, servers) == 1)
        let file = servers.runDirectory.appendingPathComponent("retry-upload-\(key)")
        try Data("file body".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fileKey = UUID().uuidString
        let fileURL = hostileURL(servers.faultServer.baseURL, "/hostile/flaky", ["key": fileKey, "failures": "1000"])
        _ = try await manager.session.upload(for: URLRequest(url: fileURL), fromFile: file,
                                             interceptor: RetryPolicy(randomUnit: { 0.5 }))
        #expect(try await flakyCount(fileKey, servers) == 1)
    }

}
