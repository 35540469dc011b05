// The cookie jar against a hostile server (issue 42): the default configuration's cookies go to AFCookies'
// jar, which stays fast and bounded under thousands of Set-Cookie lines, refuses public suffixes, and keeps
// its file private. The fault server answers as an HTTP proxy for any host name, so a test can use names
// under co.uk without DNS.
import AFCore
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Cookies: AFCookies' jar against a hostile server")
struct CookieJarHostileTests {
    /// A manager on the default configuration (which names Foundation's shared storage) whose standard
    /// plugins keep cookies in `jar`, reaching every host through the fault server acting as a proxy
    /// when `throughProxy`.
    private func manager(jar: CookieJar, servers: IntegrationServers, throughProxy: Bool = false) -> HTTPSessionManager {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 10
        if throughProxy {
            configuration.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1",
                                                       "HTTPPort": servers.faultServer.port]
        }
        var plugins = SessionPlugins.standard
        plugins.cookieStorage = jar
        let manager = HTTPSessionManager(baseURL: nil, sessionConfiguration: configuration,
                                         requestSerializer: HTTPRequestSerializer(),
                                         responseSerializer: HTTPResponseSerializer(), plugins: plugins)
        // The flood's header block is about 400 KB: past the default 256 KiB bound, which a user raises.
        manager.updateSettings { $0.transferLimits.maximumHeaderSize = 1 << 20 }
        return manager
    }

    /// The Cookie header /hostile/echo-headers received at `url`.
    private func sentCookie(_ manager: HTTPSessionManager, _ url: URL) async throws -> String? {
        let (data, response) = try await manager.session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        let echoed = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (echoed?["headers"] as? [String: String])?["cookie"]
    }

    private func temporaryStore() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("cookie-jar-hostile-\(UUID().uuidString)/jar/cookies.jsonl")
    }

    @Test func theDefaultConfigurationKeepsItsCookiesInTheJar() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = HTTPSessionManager(sessionConfiguration: .default)
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(manager.cookieStorage === CookieJar.shared)
        let name = "shared\(UInt32.random(in: 0...UInt32.max))"
        let set = hostileURL(servers.faultServer.baseURL, "/hostile/set-cookie", ["cookie": "\(name)=1"])
        _ = try await manager.session.data(for: URLRequest(url: set))
        #expect(CookieJar.shared.cookies(for: set).map(\.name).contains(name))
        #expect(!(HTTPCookieStorage.shared.cookies ?? []).contains { $0.name == name })
        for cookie in CookieJar.shared.cookies(for: set) where cookie.name == name { CookieJar.shared.deleteCookie(cookie) }
        // A configuration that names another storage keeps it.
        let ephemeral = URLSessionConfiguration.ephemeral
        let own = HTTPSessionManager(sessionConfiguration: ephemeral)
        defer { own.invalidateSession(cancelingTasks: true) }
        #expect(own.cookieStorage !== CookieJar.shared && own.cookieStorage != nil)
    }

    /// A flood of 10,000 Set-Cookie lines. libcurl 8.14 and later accept at most 5,000 header lines: there
    /// the flood is refused whole, nothing of it stored, and the jar's bounds are met by as many lines as
    /// libcurl accepts; before 8.14 by all 10,000.
    @Test func aSetCookieFloodLeavesTheJarWithinItsBounds() async throws {
        let servers = try await IntegrationServers.shared()
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent().deletingLastPathComponent()) }
        let jar = CookieJar(persistentStoreURL: store)
        let manager = manager(jar: jar, servers: servers)
        defer { manager.invalidateSession(cancelingTasks: true) }
        func flood(_ count: Int) -> URL {
            hostileURL(servers.faultServer.baseURL, "/hostile/cookie-flood", ["count": "\(count)"])
        }
        let lines: Int
        if let limit = CurlRuntime.responseHeaderCountLimit {
            let code = await urlErrorCode { _ = try await manager.session.data(for: URLRequest(url: flood(10_000))) }
            #expect(code == .cannotParseResponse)
            #expect(jar.count == 0)
            lines = limit - 10  // beside the fault server's own header lines
        } else {
            lines = 10_000
        }
        let started = ContinuousClock.now
        let (_, response) = try await manager.session.data(for: URLRequest(url: flood(lines)))
        let elapsed = ContinuousClock.now - started
        #expect(response.statusCode == 200)
        // The domain bound: purged to 150 past 180, the newest kept (150 + (lines - 181) % 31: 173 for 10,000).
        let kept = 150 + (lines - 181) % 31
        #expect(jar.count == kept)
        let echo = hostileURL(servers.faultServer.baseURL, "/hostile/echo-headers")
        #expect(try await sentCookie(manager, echo) == (lines - kept..<lines).map { "c\(String($0, radix: 36))=1" }.joined(separator: "; "))
        try jar.flush()
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: store.deletingLastPathComponent().path)
        #expect(directory[.posixPermissions] as? Int == 0o700)
        #expect(try String(contentsOf: store, encoding: .utf8).split(separator: "\n").count == kept + 1)
        // Not a timed assertion (Scripts/bench measures it): recorded so a slow run is visible.
        print("\(lines) Set-Cookie lines: \(elapsed) for the whole request")
    }

    @Test func aCookieForAPublicSuffixNeverReachesAnotherSite() async throws {
        let servers = try await IntegrationServers.shared()
        let jar = CookieJar()
        let manager = manager(jar: jar, servers: servers, throughProxy: true)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var set = URLComponents(string: "http://a.example.co.uk/hostile/set-cookie")!
        set.queryItems = ["planted=1; Domain=co.uk", "planted2=1; Domain=.uk", "own=1; Domain=example.co.uk",
                          "host=1"].map { URLQueryItem(name: "cookie", value: $0) }
        let (_, response) = try await manager.session.data(for: URLRequest(url: set.url!))
        #expect(response.statusCode == 200)
        #expect(jar.count == 2)
        #expect(try await sentCookie(manager, URL(string: "http://b.victim.co.uk/hostile/echo-headers")!) == nil)
        #expect(try await sentCookie(manager, URL(string: "http://b.example.co.uk/hostile/echo-headers")!) == "own=1")
        #expect(try await sentCookie(manager, URL(string: "http://a.example.co.uk/hostile/echo-headers")!) == "own=1; host=1")
    }

    @Test func anInsecureOriginCannotTouchSecureOrPrefixedCookies() async throws {
        let servers = try await IntegrationServers.shared()
        let jar = CookieJar()
        try jar.storeCookie(fromSetCookieValue: "__Host-session=real; Secure; Path=/", responseURL: URL(string: "https://bank.example/")!)
        try jar.storeCookie(fromSetCookieValue: "token=real; Secure", responseURL: URL(string: "https://bank.example/")!)
        let manager = manager(jar: jar, servers: servers, throughProxy: true)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var set = URLComponents(string: "http://bank.example/hostile/set-cookie")!
        set.queryItems = ["__Host-session=evil; Path=/", "token=evil", "__Secure-x=1; Secure", "plain=1"]
            .map { URLQueryItem(name: "cookie", value: $0) }
        _ = try await manager.session.data(for: URLRequest(url: set.url!))
        #expect(jar.cookieHeaderValue(for: URL(string: "https://bank.example/")!) == "__Host-session=real; token=real")
        // Only "plain" (path /hostile, the default for /hostile/set-cookie) was stored.
        #expect(try await sentCookie(manager, URL(string: "http://bank.example/hostile/echo-headers")!) == "plain=1")
        #expect(jar.count == 3)
    }
}
