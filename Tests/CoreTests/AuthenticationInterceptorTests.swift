import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFInterceptors
import AFCore
import AFProtocols

private struct Token: AuthenticationCredential {
    let value: String
    var requiresRefresh = false
}

/// Bearer tokens; refreshing gives `next` after a short wait (so concurrent failures overlap it).
private struct TokenAuthenticator: Authenticator {
    let next: String
    let refreshes = Protected(0)
    var fails = false

    func apply(_ credential: Token, to request: inout URLRequest) {
        request.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: Token) async throws -> Token {
        refreshes.withLock { $0 += 1 }
        try await Task.sleep(for: .milliseconds(100))
        if fails { throw URLError(.userAuthenticationRequired) }
        return Token(value: next)
    }

    func isRequest(_ request: URLRequest, authenticatedWith credential: Token) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

/// Bearer tokens whose one refresh lets a held-back refusal through and ends only after the interceptor
/// has read the credential for it: `isRequest` for that request waits until the refresh has returned (and
/// a moment more), so a check and a refresh made in separate steps see the refresh already over.
private struct RacingAuthenticator: Authenticator {
    let gate: String
    let refreshes = Protected(0)
    private let refreshEnded = Protected(false)

    func apply(_ credential: Token, to request: inout URLRequest) {
        request.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: Token) async throws -> Token {
        refreshes.withLock { $0 += 1 }
        sharedServer.gates.open(gate)  // the held-back request is refused now, while this refresh runs
        try await Task.sleep(for: .milliseconds(100))
        refreshEnded.withLock { $0 = true }
        return Token(value: "fresh")
    }

    func isRequest(_ request: URLRequest, authenticatedWith credential: Token) -> Bool {
        if request.url?.path.hasSuffix("/\(gate)") == true {
            let deadline = Date().addingTimeInterval(5)
            while !refreshEnded.withLock({ $0 }), Date() < deadline { usleep(1_000) }
            usleep(50_000)
        }
        return request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

@Suite("AuthenticationInterceptor: one refresh for many refused requests")
struct AuthenticationInterceptorTests {
    private func fetchAll(_ manager: URLSessionManager, _ count: Int, token: String,
                          _ interceptor: any RequestInterceptor) async -> [Result<String, URLError>] {
        await withTaskGroup(of: Result<String, URLError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        let (data, response) = try await manager.session.data(
                            for: URLRequest(url: sharedServer.url("/bearer/\(token)")), interceptor: interceptor)
                        return .success("\(response.statusCode) \(String(decoding: data, as: UTF8.self))")
                    } catch let error as URLError {
                        return .failure(error)
                    } catch {
                        return .failure(URLError(.unknown))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func concurrentRefusalsShareOneRefreshAndAreSentAgain() async {
        let authenticator = TokenAuthenticator(next: "fresh")
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: Token(value: "stale"))
        let results = await fetchAll(makeManager(), 8, token: "fresh", interceptor)
        #expect(results.map { try? $0.get() } == Array(repeating: "200 welcome", count: 8))
        #expect(authenticator.refreshes.withLock { $0 } == 1)
        #expect(await interceptor.credential?.value == "fresh")
    }

    @Test func aRefusalReadDuringTheRefreshJoinsItEvenWhenItEndsMeanwhile() async {
        // The first request is refused at once and starts the refresh; the second is refused while it runs
        // (the server holds its 401 until then) and is checked just as the refresh ends. It must wait for
        // that refresh, not start another.
        let gate = "late-\(UUID().uuidString)"
        let authenticator = RacingAuthenticator(gate: gate)
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: Token(value: "stale"))
        let manager = makeManager()
        async let first = manager.session.data(for: URLRequest(url: sharedServer.url("/bearer/fresh")),
                                               interceptor: interceptor)
        async let second = manager.session.data(for: URLRequest(url: sharedServer.url("/bearer/fresh/\(gate)")),
                                                interceptor: interceptor)
        let statuses = [try? await first.1.statusCode, try? await second.1.statusCode]
        #expect(statuses == [200, 200])
        #expect(sharedServer.gates.openedInTime(gate) == true)
        #expect(authenticator.refreshes.withLock { $0 } == 1)
        #expect(await interceptor.refreshCount == 1)
    }

    @Test func aCredentialThatNeedsRefreshingIsRefreshedBeforeSending() async {
        let authenticator = TokenAuthenticator(next: "fresh")
        let interceptor = AuthenticationInterceptor(authenticator: authenticator,
                                                    credential: Token(value: "expiring", requiresRefresh: true))
        let results = await fetchAll(makeManager(), 4, token: "fresh", interceptor)
        #expect(results.map { try? $0.get() } == Array(repeating: "200 welcome", count: 4))
        #expect(authenticator.refreshes.withLock { $0 } == 1)
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestWithItsError() async {
        var authenticator = TokenAuthenticator(next: "fresh")
        authenticator.fails = true
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: Token(value: "stale"))
        let results = await fetchAll(makeManager(), 4, token: "fresh", interceptor)
        #expect(results.map { (try? $0.get()) == nil } == [true, true, true, true])
        let codes = results.compactMap { result -> Int? in
            if case .failure(let error) = result { return error.errorCode }
            return nil
        }
        #expect(codes == Array(repeating: NSURLErrorUserAuthenticationRequired, count: 4))
        #expect(authenticator.refreshes.withLock { $0 } == 1)
    }

    @Test func aServerThatRefusesEveryTokenEndsWithExcessiveRefresh() async throws {
        let authenticator = TokenAuthenticator(next: "also-refused")
        let interceptor = AuthenticationInterceptor(
            authenticator: authenticator, credential: Token(value: "stale"),
            refreshWindow: .init(interval: .seconds(30), maximumAttempts: 2))
        await #expect(throws: AuthenticationError.excessiveRefresh) {
            _ = try await makeManager().session.data(for: URLRequest(url: sharedServer.url("/bearer/never")),
                                                     interceptor: interceptor)
        }
        #expect(authenticator.refreshes.withLock { $0 } == 2)
    }

    @Test func noCredentialFailsBeforeSending() async {
        let interceptor = AuthenticationInterceptor(authenticator: TokenAuthenticator(next: "x"))
        await #expect(throws: AuthenticationError.missingCredential) {
            _ = try await makeManager().session.data(for: URLRequest(url: sharedServer.url("/bearer/x")), interceptor: interceptor)
        }
    }

    @Test func theManagersTasksUseItToo() async {
        let authenticator = TokenAuthenticator(next: "fresh")
        let manager = makeManager()
        manager.interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: Token(value: "stale"))
        let result = await complete(manager, URLRequest(url: sharedServer.url("/bearer/fresh")))
        #expect(result.response?.statusCode == 200)
        #expect(result.object as? Data == Data("welcome".utf8))
        #expect(authenticator.refreshes.withLock { $0 } == 1)
    }
}
