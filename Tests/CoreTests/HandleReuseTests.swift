import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

/// One session runs requests one after another, so each reuses the easy handle of the one before: nothing
/// a request configured may leak into the next (see HandleState).
@Suite("Engine: reused handles start clean")
struct HandleReuseTests {
    private func text(_ result: Completion) -> String { String(decoding: result.object as? Data ?? Data(), as: UTF8.self) }

    private func request(_ path: String, method: String = "GET", body: Data? = nil,
                         headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: sharedServer.url(path))
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Both sides of libcurl 8.1 (curl/curl#11101): from it on every handle goes back to the pool as it is;
    /// before it only a plain handle's copy does. A full pool frees on either side.
    @Test func aFinishedHandleIsKeptFromLibcurl8_1AndCopiedBefore() {
        let plain = HandleState.plain(PlainTransferOptions(
            idleTimeoutMilliseconds: nil, resourceTimeoutMilliseconds: nil, followsRedirectsManually: false,
            maximumRedirects: 16, httpVersion: .automatic, tls: nil, unixSocketPath: nil, proxy: nil,
            streamWeight: 16, decodesContent: true, waitsForMultiplexing: false))
        for state in [plain, .dirty, .fresh] {
            #expect(HandleRecycling(state: state, poolIsFull: false, keepsAFreedHeader: false) == .keep)
            #expect(HandleRecycling(state: state, poolIsFull: true, keepsAFreedHeader: false) == .free)
            #expect(HandleRecycling(state: state, poolIsFull: true, keepsAFreedHeader: true) == .free)
        }
        #expect(HandleRecycling(state: plain, poolIsFull: false, keepsAFreedHeader: true) == .duplicate)
        #expect(HandleRecycling(state: .dirty, poolIsFull: false, keepsAFreedHeader: true) == .free)
    }

    @Test func methodsAndBodiesDoNotCarryOver() async {
        let manager = makeManager()
        let post = await complete(manager, request("/echo", method: "POST", body: Data("abc".utf8)))
        #expect(post.response?.value(forHTTPHeaderField: "X-Method") == "POST")
        #expect(post.object as? Data == Data("abc".utf8))
        let get = await complete(manager, request("/echo"))
        #expect(get.response?.value(forHTTPHeaderField: "X-Method") == "GET")
        #expect(get.object as? Data == Data())
        let head = await complete(manager, request("/bytes/5", method: "HEAD"))
        #expect(head.response?.statusCode == 200)
        #expect(head.object as? Data == Data())
        let bytes = await complete(manager, request("/bytes/5"))
        #expect(bytes.object as? Data == LoopbackServer.pattern(5))
        let put = await complete(manager, request("/echo", method: "PUT"))
        #expect(put.response?.value(forHTTPHeaderField: "X-Method") == "PUT")
        let again = await complete(manager, request("/echo"))
        #expect(again.response?.value(forHTTPHeaderField: "X-Method") == "GET")
    }

    @Test func headersAndContentDecodingDoNotCarryOver() async {
        let manager = makeManager()
        let custom = text(await complete(manager, request("/headers", headers: ["X-One": "1", "Accept-Encoding": "identity"])))
        #expect(custom.contains("x-one: 1"))
        #expect(custom.contains("accept-encoding: identity"))
        let plain = text(await complete(manager, request("/headers")))
        #expect(!plain.contains("x-one"))
        // libcurl's own list again (it decodes what it asks for).
        #expect(plain.contains("accept-encoding: ") && plain.contains("gzip"))
        let identity = text(await complete(manager, request("/headers", headers: ["Accept-Encoding": "identity"])))
        #expect(identity.contains("accept-encoding: identity"))
        #expect(!identity.contains("gzip"))
    }

    @Test func credentialsDoNotCarryOver() async {
        let manager = makeManager()
        var hooks = SessionManagerHooks()
        hooks.authenticationChallengeHandler = { _, challenge in
            if challenge.previousFailureCount > 0 { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(user: "user", password: "passwd", persistence: .none))
        }
        manager.hooks = hooks
        let authenticated = await complete(manager, request("/auth"))
        #expect(authenticated.object as? Data == Data("authenticated".utf8))
        for _ in 0..<3 {
            let next = text(await complete(manager, request("/headers")))
            #expect(!next.contains("authorization"))
        }
        // libcurl answers a 401 itself when a handle still holds a user name: without the handler, the
        // challenge must reach the task as the 401 it is.
        manager.hooks = SessionManagerHooks()
        let unauthenticated = await complete(manager, request("/auth"))
        #expect(unauthenticated.response?.statusCode == 401)
    }

    @Test func aCancelledTransferLeavesAWorkingHandle() async {
        let manager = makeManager()
        let cancelled = await complete(manager, request("/stall"), body: { task in task.cancel() })
        #expect(cancelled.urlErrorCode == -999)
        let next = await complete(manager, request("/bytes/7"))
        #expect(next.object as? Data == LoopbackServer.pattern(7))
    }

    @Test func aShorterRequestTimeoutAppliesAfterALongerOne() async {
        let manager = makeManager()
        let first = await complete(manager, request("/bytes/3"))
        #expect(first.object as? Data == LoopbackServer.pattern(3))
        var stalled = request("/stall")
        stalled.timeoutInterval = 1
        let start = ContinuousClock.now
        let timedOut = await complete(manager, stalled)
        #expect(timedOut.urlErrorCode == -1001)
        // The 1 s timeout, not the 60 s default, ended it; the margin is for a loaded sanitizer run.
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
