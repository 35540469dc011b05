// The HTTP cache (RFC 9111 through the configuration's URLCache) against httpbin and nginx, counting the
// requests that reach the server in its access log. Every test's URLs carry a unique `m=` query so the
// counts are its own.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

@Suite("HTTP cache: RFC 9111 through URLCache, against httpbin and nginx")
struct CoreHTTPCacheTests {
    private let marker = "m=" + UUID().uuidString

    /// A manager with a memory cache of its own (ephemeral) changed by `configure`.
    private func cachingManager(_ configure: (URLSessionConfiguration) -> Void = { _ in }) -> HTTPSessionManager {
        let manager = coreManager(configure)
        manager.responseSerializer = HTTPResponseSerializer()
        return manager
    }

    private struct Fetched: @unchecked Sendable {
        // @unchecked Sendable: test-only; written by the completion handler, read after.
        let task: SessionTask
        let result: CoreResult
        var body: String? { (result.object as? Data).map { String(decoding: $0, as: UTF8.self) } }
        var fetchType: SessionTaskMetrics.ResourceFetchType? { task.metrics?.resourceFetchType }
    }

    private func fetch(_ manager: HTTPSessionManager, _ url: URL, _ adjust: (inout URLRequest) -> Void = { _ in })
        async -> Fetched {
        var request = URLRequest(url: url)
        adjust(&request)
        let made = Mutex<SessionTask?>(nil)
        let result = await runTask { done in
            let task = manager.dataTask(with: request, uploadProgress: nil, downloadProgress: nil, completionHandler: done)
            made.withLock { $0 = task }
            return task
        }
        return Fetched(task: made.withLock { $0! }, result: result)
    }

    /// The requests with this test's marker that reached `server`, once `expected` arrived (access logs
    /// are written just after the response) and a moment passed for any unexpected one.
    private func served(_ servers: IntegrationServers, on server: HarnessServer = .httpbin, expecting expected: Int,
                        where filter: String = "") async -> Int {
        await servers.loggedRequestCount(on: server, containing: marker + filter, expecting: expected)
    }

    private func httpbin(_ servers: IntegrationServers, _ path: String, _ query: String = "") -> URL {
        servers.httpbin.url(path + "?" + (query.isEmpty ? "" : query + "&") + marker)
    }

    // MARK: Freshness

    @Test func aFreshResponseIsAnsweredWithoutTheNetworkOnBothPaths() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = httpbin(servers, "/cache/60")
        let first = await fetch(manager, url)
        #expect(first.result.response?.statusCode == 200)
        #expect(first.fetchType == .networkLoad)
        let second = await fetch(manager, url)
        #expect(second.result.response?.statusCode == 200)
        #expect(second.result.response?.value(forHTTPHeaderField: "Cache-Control") == "public, max-age=60")
        #expect(second.body == first.body)
        #expect(second.fetchType == .localCache)
        #expect(second.task.metrics?.networkProtocolName == nil)
        let (data, response) = try await manager.session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == first.body)
        #expect(await served(servers, expecting: 1) == 1)
    }

    @Test func lastModifiedGivesHeuristicFreshness() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let tenDaysAgo = HTTPDateText.daysAgo(10).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let url = httpbin(servers, "/response-headers", "Last-Modified=\(tenDaysAgo)")
        _ = await fetch(manager, url)
        let second = await fetch(manager, url)
        #expect(second.fetchType == .localCache)
        #expect(await served(servers, expecting: 1) == 1)
    }

    // MARK: Revalidation

    @Test func aStaleResponseIsRevalidatedAndA304AnswersFromTheCache() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = httpbin(servers, "/etag/v1")
        let first = await fetch(manager, url)
        #expect(first.result.response?.statusCode == 200)
        #expect(first.result.response?.value(forHTTPHeaderField: "ETag") == "v1")
        let second = await fetch(manager, url)
        // The server said 304; the task sees the stored 200 and its body.
        #expect(second.result.response?.statusCode == 200)
        #expect(second.body == first.body)
        #expect(second.fetchType == .networkLoad)
        #expect(await served(servers, expecting: 2) == 2)
        #expect(await served(servers, expecting: 1, where: " HTTP/1.1\" 304") == 1)
    }

    @Test func lastModifiedRevalidatesWithIfModifiedSince() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        // httpbin's /cache answers 304 to any conditional request, 200 with Last-Modified and ETag otherwise.
        let url = httpbin(servers, "/cache")
        let first = await fetch(manager, url)
        let second = await fetch(manager, url)
        #expect(second.result.response?.statusCode == 200)
        #expect(second.body == first.body)
        #expect(await served(servers, expecting: 2) == 2)
        #expect(await served(servers, expecting: 1, where: " HTTP/1.1\" 304") == 1)
    }

    @Test func nginxRevalidatesItsFilesByETag() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = servers.nginx.httpURL("/files/1k.bin?" + marker)
        let first = await fetch(manager, url)
        #expect((first.result.object as? Data)?.count == 1024)
        let second = await fetch(manager, url) { $0.cachePolicy = .reloadRevalidatingCacheData }
        #expect(second.result.response?.statusCode == 200)
        #expect((second.result.object as? Data) == (first.result.object as? Data))
        let third = await fetch(manager, url) { $0.cachePolicy = .returnCacheDataDontLoad }
        #expect(third.fetchType == .localCache)
        #expect((third.result.object as? Data)?.count == 1024)
        #expect(await served(servers, on: .nginx, expecting: 2) == 2)
        #expect(await served(servers, on: .nginx, expecting: 1, where: " HTTP/1.1\" 304 ") == 1)
    }

    // MARK: What is not stored

    @Test func noStoreIsNeverStored() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = httpbin(servers, "/response-headers", "Cache-Control=no-store")
        _ = await fetch(manager, url)
        _ = await fetch(manager, url)
        let offline = await fetch(manager, url) { $0.cachePolicy = .returnCacheDataDontLoad }
        #expect(offline.result.code == NSURLErrorResourceUnavailable)
        #expect(await served(servers, expecting: 2) == 2)
    }

    @Test func anUnsafeMethodRemovesWhatIsStoredForItsURL() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = httpbin(servers, "/response-headers", "Cache-Control=max-age%3D60")
        _ = await fetch(manager, url)
        #expect(await fetch(manager, url).fetchType == .localCache)
        let post = await fetch(manager, url) { $0.httpMethod = "POST" }
        #expect(post.result.response?.statusCode == 200)
        #expect(await fetch(manager, url).fetchType == .networkLoad)
        #expect(await served(servers, expecting: 3) == 3)
    }

    @Test func theWillCacheHookCanRefuse() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let offered = Mutex<[Int]>([])
        var hooks = manager.hooks
        hooks.dataTaskWillCacheResponse = { _, proposed in
            offered.withLock { $0.append(proposed.data.count) }
            return nil
        }
        manager.hooks = hooks
        let url = httpbin(servers, "/cache/60")
        let first = await fetch(manager, url)
        _ = await fetch(manager, url)
        #expect(offered.withLock { $0 } == [(first.result.object as? Data)?.count ?? -1, (first.result.object as? Data)?.count ?? -1])
        #expect(await served(servers, expecting: 2) == 2)
    }

    @Test func oneUsersAuthenticatedAnswerDoesNotReachAnotherUnlessShareable() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        func asAlice(_ request: inout URLRequest) { request.setValue("Bearer alice", forHTTPHeaderField: "Authorization") }
        // Private to Alice (max-age without public): not stored, so Bob's request goes to the server.
        let personal = httpbin(servers, "/response-headers", "Cache-Control=max-age%3D60&X-Mode=personal")
        _ = await fetch(manager, personal, asAlice)
        #expect(await fetch(manager, personal).fetchType == .networkLoad)
        // Marked public: shared.
        let shared = httpbin(servers, "/response-headers", "Cache-Control=public,max-age%3D60&X-Mode=shared")
        _ = await fetch(manager, shared, asAlice)
        #expect(await fetch(manager, shared).fetchType == .localCache)
        #expect(await served(servers, expecting: 3) == 3)
    }

    // MARK: Vary

    @Test func varyKeepsRepresentationsApart() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = httpbin(servers, "/response-headers", "Cache-Control=max-age%3D60&Vary=Accept-Language")
        func language(_ value: String) -> (inout URLRequest) -> Void { { $0.setValue(value, forHTTPHeaderField: "Accept-Language") } }
        #expect(await fetch(manager, url, language("en")).fetchType == .networkLoad)
        #expect(await fetch(manager, url, language("en")).fetchType == .localCache)
        #expect(await fetch(manager, url, language("fr")).fetchType == .networkLoad)
        #expect(await served(servers, expecting: 2) == 2)
    }

    // MARK: Policies

    @Test func eachPolicyThroughTheRequestAndTheConfiguration() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        // Stored but never fresh (no freshness, no validator).
        let plain = httpbin(servers, "/response-headers", "X-Plain=1")
        let missing = await fetch(manager, plain) { $0.cachePolicy = .returnCacheDataDontLoad }
        #expect(missing.result.code == NSURLErrorResourceUnavailable)
        _ = await fetch(manager, plain)
        #expect(await fetch(manager, plain).fetchType == .networkLoad)
        #expect(await fetch(manager, plain) { $0.cachePolicy = .returnCacheDataElseLoad }.fetchType == .localCache)
        #expect(await fetch(manager, plain) { $0.cachePolicy = .returnCacheDataDontLoad }.fetchType == .localCache)
        // Fresh, yet reloaded.
        let fresh = httpbin(servers, "/cache/60")
        _ = await fetch(manager, fresh)
        #expect(await fetch(manager, fresh) { $0.cachePolicy = .reloadIgnoringLocalCacheData }.fetchType == .networkLoad)
        #expect(await served(servers, expecting: 4) == 4)

        // The configuration's policy applies to requests that keep the default.
        let offline = cachingManager { $0.requestCachePolicy = .returnCacheDataDontLoad }
        defer { offline.invalidateSession(cancelingTasks: true) }
        #expect(await fetch(offline, fresh).result.code == NSURLErrorResourceUnavailable)
        #expect(await served(servers, expecting: 4) == 4)
    }

    @Test func aStaleMustRevalidateResponseIsNotServedOffline() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = cachingManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        // Both are stale at once (max-age=0); only the one without must-revalidate may be served offline.
        let lenient = httpbin(servers, "/response-headers", "Cache-Control=max-age%3D0")
        let strict = httpbin(servers, "/response-headers", "Cache-Control=max-age%3D0,must-revalidate")
        _ = await fetch(manager, lenient)
        _ = await fetch(manager, strict)
        #expect(await fetch(manager, lenient) { $0.cachePolicy = .returnCacheDataDontLoad }.fetchType == .localCache)
        #expect(await fetch(manager, strict) { $0.cachePolicy = .returnCacheDataDontLoad }.result.code
                == NSURLErrorResourceUnavailable)
        #expect(await served(servers, expecting: 2) == 2)
    }

    // MARK: On disk

    @Test func aDiskCacheAnswersAnotherSessionLater() async throws {
        let servers = try await IntegrationServers.shared()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = httpbin(servers, "/cache/60")
        let writer = cachingManager { $0.urlCache = URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path) }
        let first = await fetch(writer, url)
        writer.invalidateSession(cancelingTasks: false)
        // Written in the background (Foundation writes a temporary file, then renames it): wait for the entry.
        #expect(await waitUntil {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasSuffix(".storedcachedurlresponse") }.count == 1
        })
        let reader = cachingManager { $0.urlCache = URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path) }
        defer { reader.invalidateSession(cancelingTasks: true) }
        let second = await fetch(reader, url)
        #expect(second.fetchType == .localCache)
        #expect(second.body == first.body)
        #expect(await served(servers, expecting: 1) == 1)
    }
}

/// HTTP dates for the tests' headers.
enum HTTPDateText {
    static func daysAgo(_ days: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date().addingTimeInterval(-days * 86_400))
    }
}
