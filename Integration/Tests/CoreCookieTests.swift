// Cookies through URLSessionConfiguration and URLRequest, against httpbin: `/cookies/set` answers with
// Set-Cookie (and a redirect), `/cookies` echoes the Cookie header it received.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Cookies: configuration and request policies against httpbin")
struct CoreCookieTests {
    /// A manager on an ephemeral configuration (a cookie storage of its own) changed by `configure`.
    private func session(_ configure: (URLSessionConfiguration) -> Void = { _ in })
        -> (manager: HTTPSessionManager, storage: HTTPCookieStorage) {
        let configuration = URLSessionConfiguration.ephemeral
        configure(configuration)
        let manager = HTTPSessionManager(baseURL: nil, sessionConfiguration: configuration)
        manager.completionQueue = DispatchQueue(label: "cookies.tests")
        return (manager, configuration.httpCookieStorage!)
    }

    private func run(_ manager: HTTPSessionManager, _ request: URLRequest) async -> CoreResult {
        await runTask { done in
            manager.dataTask(with: request, uploadProgress: nil, downloadProgress: nil, completionHandler: done)
        }
    }

    /// Sets `flavour=oat` through `/cookies/set`, then asks `/cookies` which cookies arrived.
    private func setThenEcho(_ manager: HTTPSessionManager, _ servers: IntegrationServers,
                             adjust: (inout URLRequest) -> Void = { _ in }) async -> [String: String]? {
        var set = URLRequest(url: servers.httpbin.url("/cookies/set?flavour=oat"))
        adjust(&set)
        let first = await run(manager, set)
        #expect(first.response?.statusCode == 200)
        var echo = URLRequest(url: servers.httpbin.url("/cookies"))
        adjust(&echo)
        return await run(manager, echo).json?["cookies"] as? [String: String]
    }

    private func stored(_ storage: HTTPCookieStorage) -> [String: String] {
        Dictionary((storage.cookies ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func cookiesAreStoredAndSentByDefault() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, storage) = session()
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(await setThenEcho(manager, servers) == ["flavour": "oat"])
        #expect(stored(storage) == ["flavour": "oat"])
    }

    @Test func httpShouldSetCookiesFalseSendsNoneButStillStores() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, storage) = session { $0.httpShouldSetCookies = false }
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(await setThenEcho(manager, servers) == [:])
        #expect(stored(storage) == ["flavour": "oat"])
    }

    @Test func acceptPolicyNeverStoresNothing() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, storage) = session { $0.httpCookieAcceptPolicy = .never }
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(await setThenEcho(manager, servers) == [:])
        #expect(stored(storage) == [:])
    }

    @Test func onlyFromMainDocumentDomainComparesTheRequestsMainDocument() async throws {
        let servers = try await IntegrationServers.shared()
        let foreign = session { $0.httpCookieAcceptPolicy = .onlyFromMainDocumentDomain }
        defer { foreign.manager.invalidateSession(cancelingTasks: true) }
        #expect(await setThenEcho(foreign.manager, servers) { $0.mainDocumentURL = URL(string: "http://example.org/page") } == [:])
        #expect(stored(foreign.storage) == [:])

        let own = session { $0.httpCookieAcceptPolicy = .onlyFromMainDocumentDomain }
        defer { own.manager.invalidateSession(cancelingTasks: true) }
        #expect(await setThenEcho(own.manager, servers) { $0.mainDocumentURL = URL(string: "http://127.0.0.1/page") }
            == ["flavour": "oat"])

        // No main document: the request is its own, so its cookies are accepted (URLSession's default).
        let alone = session { $0.httpCookieAcceptPolicy = .onlyFromMainDocumentDomain }
        defer { alone.manager.invalidateSession(cancelingTasks: true) }
        #expect(await setThenEcho(alone.manager, servers) == ["flavour": "oat"])
    }

    @Test func aRequestThatDoesNotHandleCookiesNeitherSendsNorStores() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, storage) = session()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let home = servers.httpbin.url("/cookies")
        storage.setCookies([try #require(HTTPCookie(properties: [.name: "kept", .value: "1", .domain: home.host!, .path: "/"]))],
                           for: home, mainDocumentURL: nil)
        #expect(await setThenEcho(manager, servers) { $0.httpShouldHandleCookies = false } == [:])
        #expect(stored(storage) == ["kept": "1"])
        // The same storage and a request that handles cookies: the stored one goes out.
        #expect(await run(manager, URLRequest(url: home)).json?["cookies"] as? [String: String] == ["kept": "1"])
    }
}
