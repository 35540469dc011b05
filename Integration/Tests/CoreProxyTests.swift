// Proxies from the configuration against real ones: tinyproxy (HTTP, and CONNECT for https) and
// microsocks (SOCKS5), both requiring credentials; exceptions; af with curl's environment variables.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Core: proxies from connectionProxyDictionary")
struct CoreProxyTests {
    private func manager(_ proxies: [AnyHashable: Any]) -> HTTPSessionManager {
        let manager = coreManager { $0.connectionProxyDictionary = proxies }
        manager.responseSerializer = HTTPResponseSerializer(validation: HTTPResponseValidation(acceptableStatusCodes: nil))
        return manager
    }

    private func fetch(_ manager: HTTPSessionManager, _ url: URL) async -> CoreResult {
        await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
    }

    private func credentials() -> [AnyHashable: Any] {
        ["kCFProxyUsernameKey": ProxyServers.username, "kCFProxyPasswordKey": ProxyServers.password]
    }

    @Test func anHTTPProxyForwardsWithCredentials() async throws {
        let servers = try await IntegrationServers.shared()
        var proxies: [AnyHashable: Any] = ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": servers.proxies.httpPort]
        let anonymous = manager(proxies)
        defer { anonymous.invalidateSession(cancelingTasks: true) }
        let refused = await fetch(anonymous, servers.httpbin.url("/headers"))
        #expect(refused.response?.statusCode == 407)

        proxies.merge(credentials()) { $1 }
        let manager = manager(proxies)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await fetch(manager, servers.httpbin.url("/headers"))
        #expect(result.response?.statusCode == 200)
        #expect((result.json?["headers"] as? [String: Any])?["X-Test-Proxy"] as? String == ProxyServers.marker)
    }

    @Test func httpsGoesThroughCONNECT() async throws {
        let servers = try await IntegrationServers.shared()
        var proxies: [AnyHashable: Any] = ["HTTPSEnable": 1, "HTTPSProxy": "127.0.0.1", "HTTPSPort": servers.proxies.httpPort]
        proxies.merge(credentials()) { $1 }
        let manager = manager(proxies)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        let port = servers.nginx.httpsPort(.valid)
        let result = await fetch(manager, servers.nginx.httpsURL("/files/1k.bin", scenario: .valid))
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect((result.object as? Data)?.count == 1024,
                "\(result.response?.statusCode ?? -1) \(result.response?.allHeaderFields ?? [:])")
        #expect(servers.logTail(of: .tinyproxy, lines: 200).contains("CONNECT localhost:\(port)"))
    }

    @Test func aSOCKS5ProxyCarriesEveryRequestWithCredentials() async throws {
        let servers = try await IntegrationServers.shared()
        var proxies: [AnyHashable: Any] = ["SOCKSEnable": 1, "SOCKSProxy": "127.0.0.1", "SOCKSPort": servers.proxies.socksPort]
        proxies.merge(credentials()) { $1 }
        let manager = manager(proxies)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await fetch(manager, servers.httpbin.url("/get"))
        #expect(result.response?.statusCode == 200)

        proxies["kCFProxyPasswordKey"] = "wrong"
        let refusedManager = self.manager(proxies)
        defer { refusedManager.invalidateSession(cancelingTasks: true) }
        let refused = await fetch(refusedManager, servers.httpbin.url("/get"))
        #expect(refused.response == nil)
        #expect(refused.code == URLError.Code.cannotConnectToHost.rawValue)
    }

    @Test func exceptionsGoDirect() async throws {
        let servers = try await IntegrationServers.shared()
        // A proxy nothing listens on: only requests that bypass it can succeed.
        let dead: [AnyHashable: Any] = ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": 9]
        let proxied = manager(dead)
        defer { proxied.invalidateSession(cancelingTasks: true) }
        #expect(await fetch(proxied, servers.nginx.httpURL("/files/1k.bin")).code == URLError.Code.cannotConnectToHost.rawValue)

        var excepted = dead
        excepted["ExceptionsList"] = ["127.0.0.1"]
        let direct = manager(excepted)
        defer { direct.invalidateSession(cancelingTasks: true) }
        #expect((await fetch(direct, servers.nginx.httpURL("/files/1k.bin")).object as? Data)?.count == 1024)
    }

    @Test func afReadsCurlsEnvironmentVariables() async throws {
        let servers = try await IntegrationServers.shared()
        let af = AFToolTests.executable
        let proxy = "http://\(ProxyServers.username):\(ProxyServers.password)@127.0.0.1:\(servers.proxies.httpPort)"
        let result = try await ExternalCommand.run(af, ["get", servers.httpbin.url("/headers").absoluteString],
                                                   environment: ["http_proxy": proxy])
        #expect(result.exitCode == 0)
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("\"X-Test-Proxy\" : \"\(ProxyServers.marker)\""))
        let bypassed = try await ExternalCommand.run(af, ["get", servers.httpbin.url("/headers").absoluteString],
                                                     environment: ["http_proxy": proxy, "no_proxy": "127.0.0.1"])
        #expect(!String(decoding: bypassed.stdout, as: UTF8.self).contains(ProxyServers.marker))
    }
}
