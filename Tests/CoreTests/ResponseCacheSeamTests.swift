import AFCore
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A toy cache written against AFProtocols alone: one entry per URL, kept forever; `/bytes/…` entries
/// are revalidated (the loopback server answers every request, so a 304 never comes: the toy marks
/// entries of `fresh.test` to answer without the network instead).
private final class ToyCache: ResponseCaching, SessionResponseCache {
    let log = Protected<[String]>([])
    private let entries = Protected<[URL: CachedURLResponse]>([:])

    func sessionCache(storage: URLCache, sessionPolicy: URLRequest.CachePolicy,
                      additionalHeaders: [(name: String, value: String)]) -> any SessionResponseCache {
        log.withLock { $0.append("made for \(sessionPolicy.rawValue)") }
        return self
    }

    func plan(for request: CacheRequest, trust: () -> CacheTrustRequirement) -> CachePlan? {
        log.withLock { $0.append("plan \(request.method) \(request.url.path)") }
        if request.url.host == "fresh.test" {
            let response = HTTPURLResponse(url: request.url, statusCode: 203, httpVersion: "HTTP/1.1",
                                           headerFields: ["X-Toy": "answer"])!
            return .answer(CachedAnswer(response: response, data: Data("from the toy".utf8), record: "fresh"))
        }
        guard let stored = entries.withLock({ $0[request.url] }), let response = stored.response as? HTTPURLResponse else {
            return nil
        }
        return .revalidate(CachedAnswer(response: response, data: stored.data, record: "stored"),
                           conditionalHeaderFields: [("X-Toy-Validator", "v1")])
    }

    func freshen(_ answer: CachedAnswer, with notModified: HTTPURLResponse, requestTime: Date,
                 responseTime: Date) -> CachedAnswer {
        log.withLock { $0.append("freshen") }
        return answer
    }

    func effect(ofMethod method: String, statusCode: Int, field: (String) -> String?) -> CacheEffect {
        log.withLock { $0.append("effect \(method) \(statusCode) etag \(field("etag") ?? "-")") }
        return method == "GET" ? .mayStore : .invalidate
    }

    func invalidate(_ url: URL, after response: HTTPURLResponse) {
        log.withLock { $0.append("invalidate \(url.path)") }
        entries.withLock { $0[url] = nil }
    }

    func proposal(for request: CacheRequest, response: HTTPURLResponse, data: Data, revalidated: CachedAnswer?,
                  requestTime: Date, responseTime: Date, usedCredential: Bool,
                  trust: CacheTrustRecord?) -> CacheProposal? {
        log.withLock { $0.append("propose \(request.url.path) \(data.count) bytes") }
        return CacheProposal(cachedResponse: CachedURLResponse(response: response, data: data), record: "proposed")
    }

    func store(_ proposal: CacheProposal, as chosen: CachedURLResponse, for url: URL) {
        log.withLock { $0.append("store \(url.path) \(proposal.record as? String ?? "?")") }
        entries.withLock { $0[url] = chosen }
    }

    func waitForWrites() {}

    var lines: [String] { log.withLock { $0 } }
}

@Suite("The response cache seam: a custom cache on Core's sessions")
struct ResponseCacheSeamTests {
    private func manager(_ cache: ToyCache) -> URLSessionManager {
        makeManager(plugins: SessionPlugins(responseCache: cache))
    }

    @Test func anAnswerFromTheCacheNeverTouchesTheNetwork() async throws {
        let cache = ToyCache()
        let manager = manager(cache)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await complete(manager, URLRequest(url: URL(string: "http://fresh.test/page")!))
        #expect(result.error == nil)
        #expect(result.response?.statusCode == 203)
        #expect(result.object as? Data == Data("from the toy".utf8))
        #expect(cache.lines == ["made for \(URLRequest.CachePolicy.useProtocolCachePolicy.rawValue)", "plan GET /page"])
    }

    @Test func aResponseIsProposedStoredAndThenRevalidated() async throws {
        let cache = ToyCache()
        let manager = manager(cache)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let first = await complete(manager, URLRequest(url: sharedServer.url("/bytes/5")))
        #expect(first.error == nil)
        #expect(cache.lines.dropFirst() == ["plan GET /bytes/5", "effect GET 200 etag \"v1\"",
                                            "propose /bytes/5 5 bytes", "store /bytes/5 proposed"])
        // The stored entry makes the next request conditional: the toy's validator goes out.
        let echoed = await complete(manager, URLRequest(url: sharedServer.url("/headers")))
        #expect(echoed.error == nil)
        let second = await complete(manager, URLRequest(url: sharedServer.url("/headers")))
        let lines = String(decoding: second.object as? Data ?? Data(), as: UTF8.self).split(separator: "\n")
        #expect(lines.contains("x-toy-validator: v1"))
    }

    @Test func anUnsafeMethodInvalidatesAndUploadsAreNotConsulted() async throws {
        let cache = ToyCache()
        let manager = manager(cache)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var post = URLRequest(url: sharedServer.url("/echo"))
        post.httpMethod = "POST"
        post.httpBody = Data("x".utf8)
        let result = await complete(manager, post)
        #expect(result.error == nil)
        #expect(cache.lines.dropFirst() == ["plan POST /echo", "effect POST 200 etag -", "invalidate /echo"])
        // An upload's body is a source the engine does not hold: the cache plans nothing for it, but
        // its success still invalidates.
        let upload = try await manager.session.upload(for: post, from: Data("y".utf8))
        #expect(upload.1.statusCode == 200)
        #expect(cache.lines.dropFirst(4) == ["effect POST 200 etag -", "invalidate /echo"])
    }

    @Test func withoutACachePluginTheConfigurationsURLCacheIsNotUsed() async throws {
        let storage = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        let manager = makeManager { $0.urlCache = storage }
        defer { manager.invalidateSession(cancelingTasks: true) }
        _ = await complete(manager, URLRequest(url: sharedServer.url("/bytes/3")))
        #expect(storage.currentMemoryUsage == 0)
    }
}
