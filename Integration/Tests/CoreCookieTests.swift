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

    // MARK: cookies on redirect hops (the engine follows each hop when cookies are sent)

    @Test func aRedirectsCookiesGoOnItsOwnNextHop() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, storage) = session()
        defer { manager.invalidateSession(cancelingTasks: true) }
        // /cookies/set answers 302 with Set-Cookie; the hop to /cookies must carry the new cookie.
        let hop = await run(manager, URLRequest(url: servers.httpbin.url("/cookies/set?flavour=oat")))
        #expect(hop.response?.statusCode == 200)
        #expect(hop.response?.url == servers.httpbin.url("/cookies"))
        #expect(hop.json?["cookies"] as? [String: String] == ["flavour": "oat"])
        #expect(stored(storage) == ["flavour": "oat"])

        // The lean path follows the same way.
        let (data, response) = try await manager.session.data(for: URLRequest(url: servers.httpbin.url("/cookies/set?crumb=rye")))
        #expect(response.statusCode == 200)
        let echoed = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["cookies"] as? [String: String]
        #expect(echoed == ["flavour": "oat", "crumb": "rye"])
    }

    @Test func aRedirectHopSendsNoCookieThePoliciesKeepBack() async throws {
        let servers = try await IntegrationServers.shared()
        let unsent = session { $0.httpShouldSetCookies = false }
        defer { unsent.manager.invalidateSession(cancelingTasks: true) }
        let quiet = await run(unsent.manager, URLRequest(url: servers.httpbin.url("/cookies/set?flavour=oat")))
        #expect(quiet.json?["cookies"] as? [String: String] == [:])
        #expect(stored(unsent.storage) == ["flavour": "oat"])

        let refused = session { $0.httpCookieAcceptPolicy = .never }
        defer { refused.manager.invalidateSession(cancelingTasks: true) }
        let none = await run(refused.manager, URLRequest(url: servers.httpbin.url("/cookies/set?flavour=oat")))
        #expect(none.json?["cookies"] as? [String: String] == [:])
        #expect(stored(refused.storage) == [:])
    }

    @Test func aCrossOriginHopCarriesTheTargetsCookiesOnly() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, storage) = session()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let origin = servers.httpbin.url("/cookies")
        var target = URLComponents(url: origin, resolvingAgainstBaseURL: false)!
        target.host = "localhost"
        let targetURL = try #require(target.url)
        storage.setCookie(try #require(HTTPCookie(properties: [.name: "origin", .value: "1", .domain: origin.host!, .path: "/"])))
        storage.setCookie(try #require(HTTPCookie(properties: [.name: "target", .value: "2", .domain: "localhost", .path: "/"])))
        #expect(stored(storage) == ["origin": "1", "target": "2"])
        var redirect = URLComponents(url: servers.httpbin.url("/redirect-to"), resolvingAgainstBaseURL: false)!
        redirect.queryItems = [URLQueryItem(name: "url", value: targetURL.absoluteString)]
        var request = URLRequest(url: try #require(redirect.url))
        request.setValue("explicit=3", forHTTPHeaderField: "Cookie")
        let result = await run(manager, request)
        #expect(result.response?.url == targetURL)
        // The caller's own Cookie header and the origin's cookies stay with the origin.
        #expect(result.json?["cookies"] as? [String: String] == ["target": "2"])
    }

}
