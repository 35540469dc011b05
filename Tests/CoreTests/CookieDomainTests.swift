// Which domains a response may set cookies for (RFC 6265 §5.3): its own host or a parent domain of it,
// never another site, a single label, or a suffix of an address. Foundation on Linux checks none of this.
@testable import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Cookies: the domains a response may set")
struct CookieDomainTests {
    private func cookie(domain: String) throws -> HTTPCookie {
        try #require(HTTPCookie(properties: [.name: "c", .value: "1", .domain: domain, .path: "/"]))
    }

    @Test(arguments: [
        ("http://www.bank.example/", "www.bank.example", true),
        ("http://www.bank.example/", ".bank.example", true),
        ("http://www.bank.example/", "bank.example", true),
        ("http://WWW.Bank.Example/", "bank.EXAMPLE", true),
        ("http://evil.example/", "bank.example", false),
        ("http://evil.example/", ".example", false),
        ("http://evil.example/", "vil.example", false),
        ("http://bank.example.evil.test/", "bank.example", false),
        ("http://localhost:8080/", "localhost", true),
        ("http://a.localhost/", "localhost", false),
        ("http://127.0.0.1:8080/", "127.0.0.1", true),
        ("http://127.0.0.1/", "0.0.1", false),
        ("http://127.0.0.1/", "localhost", false),
        ("http://[::1]:8080/", "::1", true),
        ("http://[::1]/", "localhost", false),
    ])
    func aResponseSetsCookiesForItsOwnHostOrAParentOnly(url: String, domain: String, allowed: Bool) throws {
        #expect(FoundationCookieJar.responseMaySet(try cookie(domain: domain), from: try #require(URL(string: url))) == allowed)
    }
}

@Suite("Cookies: a header looked up before the engine needs it")
struct PreparedCookieHeaderTests {
    @Test func itHoldsUntilAStoreGoesThroughTheJar() throws {
        let jar = FoundationCookieJar(storage: try #require(URLSessionConfiguration.ephemeral.httpCookieStorage))
        let url = try #require(URL(string: "http://127.0.0.1:8080/a"))
        let empty = jar.preparedHeader(for: url)
        #expect(empty.value == nil)
        #expect(empty.url == url)
        #expect(jar.isCurrent(empty))
        jar.storeCookies(fromSetCookieValues: ["a=1; Path=/"], responseURL: url)
        #expect(!jar.isCurrent(empty))
        let one = jar.preparedHeader(for: url)
        #expect(one.value == "a=1")
        #expect(jar.isCurrent(one))
        // A response setting nothing the jar keeps (another site's domain) stores nothing: still current.
        jar.storeCookies(fromSetCookieValues: ["b=2; Domain=other.example"], responseURL: url)
        #expect(jar.isCurrent(one))
        jar.storeCookies(fromSetCookieValues: ["b=2; Path=/"], responseURL: url)
        #expect(!jar.isCurrent(one))
        // Foundation's storage keeps no order among a URL's cookies: the pairs, in any order.
        let pairs = jar.preparedHeader(for: url).value?.components(separatedBy: "; ").sorted()
        #expect(pairs == ["a=1", "b=2"])
    }
}
