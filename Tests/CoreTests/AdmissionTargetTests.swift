import Foundation
import Testing
@testable import AFCore

@Suite("Engine: the host a request counts against")
struct AdmissionTargetTests {
    /// The target's key and whether it is https ("key https" or "key http").
    private func target(_ string: String, proxy: String? = nil) throws -> String? {
        AdmissionTarget(url: try #require(URL(string: string)), proxy: proxy).map { "\($0.key) \($0.isHTTPS ? "https" : "http")" }
    }

    @Test func theKeyIsTheLowercasedHostAndThePortOrTheSchemesDefault() throws {
        #expect(try target("http://Example.COM/a?b#c") == "example.com:80 http")
        #expect(try target("HTTPS://h.example:8443/x") == "h.example:8443 https")
        #expect(try target("https://h?q=1") == "h:443 https")
        #expect(try target("http://h#top") == "h:80 http")
        #expect(try target("http://h:080/") == "h:80 http")
        #expect(try target("http://h:/p") == "h:80 http")
    }

    @Test func credentialsAreNotPartOfTheKeyAndAnIPv6PortFollowsTheBracket() throws {
        #expect(try target("http://user:pa%3Ass@h:81/") == "h:81 http")
        #expect(try target("http://[::1]:9/") == "[::1]:9 http")
        #expect(try target("https://[::1]/") == "[::1]:443 https")
    }

    @Test func aURLWithoutAHostHasNoneUnlessAProxyCarriesIt() throws {
        #expect(try target("file:///tmp/x") == nil)
        #expect(try target("mailto:a@b") == nil)
        #expect(try target("http://h/", proxy: "proxy.example:3128") == "proxy.example:3128 http")
        #expect(try target("https://h/", proxy: "proxy.example:3128") == "proxy.example:3128 https")
    }

    /// The key Foundation's getters would make, for the URLs they read the same way.
    @Test func itAgreesWithFoundationsHostAndPort() throws {
        for string in ["http://127.0.0.1:8080/x", "https://Sub.Example.org/", "http://a-b.c:1/?x=y", "https://x%41y.example/",
                       "http://u@h.example:65535/p"] {
            let url = try #require(URL(string: string))
            let host = try #require(url.host(percentEncoded: true)).lowercased()
            let port = url.port ?? (url.scheme == "https" ? 443 : 80)
            #expect(AdmissionTarget(url: url, proxy: nil)?.key == "\(host):\(port)", "\(string)")
        }
    }
}
