import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

@Suite("ProxySettings: CFNetwork's proxy keys and curl's environment variables")
struct ProxySettingsTests {
    private let page = URL(string: "http://example.com/a")!
    private let securePage = URL(string: "https://example.com/a")!

    @Test func noDictionaryMeansNoProxyAndNoEnvironment() {
        let settings = ProxySettings(dictionary: nil, environment: ["http_proxy": "http://env:1"])
        #expect(settings.proxy(for: page) == nil)
        #expect(ProxySettings(dictionary: [:], environment: [:]).proxy(for: securePage) == nil)
    }

    @Test func httpAndHTTPSProxiesGoByScheme() {
        let settings = ProxySettings(dictionary: [
            "HTTPEnable": 1, "HTTPProxy": "web.proxy", "HTTPPort": 3128,
            "HTTPSEnable": true, "HTTPSProxy": "http://tls.proxy", "HTTPSPort": "8443",
            "kCFProxyUsernameKey": "u", "kCFProxyPasswordKey": "p",
        ], environment: [:])
        #expect(settings.proxy(for: page) == "http://web.proxy:3128")
        #expect(settings.proxy(for: securePage) == "http://tls.proxy:8443")
        #expect(settings.username == "u")
        #expect(settings.password == "p")
        // A disabled proxy, and a default port.
        let disabled = ProxySettings(dictionary: ["HTTPEnable": 0, "HTTPProxy": "web.proxy", "HTTPSProxy": "t"], environment: [:])
        #expect(disabled.proxy(for: page) == nil)
        #expect(disabled.proxy(for: securePage) == "http://t:8080")
    }

    @Test func socksTakesEveryURLAndExceptionsGoDirect() {
        let settings = ProxySettings(dictionary: [
            "HTTPProxy": "web.proxy", "SOCKSEnable": 1, "SOCKSProxy": "127.0.0.1", "SOCKSPort": 1081,
            "ExceptionsList": ["*.internal", ".corp.test", "localhost", "  10.0.0.1 "],
        ], environment: [:])
        #expect(settings.proxy(for: page) == "socks5h://127.0.0.1:1081")
        #expect(settings.proxy(for: securePage) == "socks5h://127.0.0.1:1081")
        for direct in ["http://a.internal/", "http://internal/", "https://x.y.corp.test/", "http://localhost:8080/", "http://10.0.0.1/"] {
            #expect(settings.proxy(for: URL(string: direct)!) == nil, "\(direct)")
        }
        #expect(settings.proxy(for: URL(string: "http://notinternal/")!) == "socks5h://127.0.0.1:1081")
        #expect(settings.proxy(for: URL(string: "http://localhost.evil/")!) == "socks5h://127.0.0.1:1081")
    }

    @Test func theEnvironmentWhenTheConfigurationAsksForIt() {
        let asked: [AnyHashable: Any] = [URLSessionConfiguration.environmentProxiesKey: true, "HTTPProxy": "ignored"]
        let settings = ProxySettings(dictionary: asked, environment: [
            "http_proxy": "http://user:pw@web:3128", "HTTPS_PROXY": "http://tls:3129", "no_proxy": "localhost, .internal",
        ])
        #expect(settings.proxy(for: page) == "http://user:pw@web:3128")
        #expect(settings.proxy(for: securePage) == "http://tls:3129")
        #expect(settings.proxy(for: URL(string: "http://localhost/")!) == nil)
        #expect(settings.proxy(for: URL(string: "https://a.internal/")!) == nil)
        // HTTP_PROXY in capitals is never read (httpoxy); all_proxy fills in.
        let capitals = ProxySettings(dictionary: asked, environment: ["HTTP_PROXY": "http://evil:1", "all_proxy": "socks5h://s:1080"])
        #expect(capitals.proxy(for: page) == "socks5h://s:1080")
        #expect(ProxySettings(dictionary: asked, environment: ["HTTP_PROXY": "http://evil:1"]).proxy(for: page) == nil)
    }
}
