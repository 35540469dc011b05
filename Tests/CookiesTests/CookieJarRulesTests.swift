// The storage and retrieval rules of RFC 6265bis (§5.7, §5.8.3) with the public suffix list, without a
// network: a jar is told which URL each Set-Cookie came from and asked what a request would send.
@testable import AFCookies
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Cookies: storage and matching rules")
struct CookieJarRulesTests {
    private func url(_ text: String) -> URL { URL(string: text)! }

    private func jar(_ lines: [(String, String)]) throws -> CookieJar {
        let jar = CookieJar()
        for (line, from) in lines { try jar.storeCookie(fromSetCookieValue: line, responseURL: url(from)) }
        return jar
    }

    @Test func aPublicSuffixIsNoOnesDomain() throws {
        let jar = CookieJar()
        #expect(throws: CookieRefusal.publicSuffix("co.uk")) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=co.uk", responseURL: url("http://a.example.co.uk/"))
        }
        // A private suffix (github.io) counts too.
        #expect(throws: CookieRefusal.publicSuffix("github.io")) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=.github.io", responseURL: url("https://me.github.io/"))
        }
        #expect(throws: CookieRefusal.publicSuffix("com")) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=com", responseURL: url("http://example.com/"))
        }
        // A single unlisted label is a suffix by the list's '*' rule.
        #expect(throws: CookieRefusal.publicSuffix("internal")) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=internal", responseURL: url("http://db.internal/"))
        }
        #expect(jar.count == 0)
        #expect(jar.cookieHeaderValue(for: url("http://b.victim.co.uk/")) == nil)
    }

    @Test func aPublicSuffixHostKeepsItsOwnCookieHostOnly() throws {
        let jar = try jar([("a=1; Domain=co.uk", "http://co.uk/")])
        #expect(jar.cookieHeaderValue(for: url("http://co.uk/")) == "a=1")
        #expect(jar.cookieHeaderValue(for: url("http://example.co.uk/")) == nil)
    }

    @Test func aDomainCookieReachesSubdomainsAHostOnlyOneDoesNot() throws {
        let jar = try jar([("d=1; Domain=example.com", "http://www.example.com/"), ("h=2", "http://www.example.com/")])
        #expect(jar.cookieHeaderValue(for: url("http://www.example.com/")) == "d=1; h=2")
        #expect(jar.cookieHeaderValue(for: url("http://example.com/")) == "d=1")
        #expect(jar.cookieHeaderValue(for: url("http://a.b.example.com/")) == "d=1")
        #expect(jar.cookieHeaderValue(for: url("http://notexample.com/")) == nil)
        #expect(jar.cookieHeaderValue(for: url("http://example.org/")) == nil)
    }

    @Test func aDomainTheHostIsNotInIsRefused() {
        let jar = CookieJar()
        #expect(throws: CookieRefusal.domainMismatch("victim.com")) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=victim.com", responseURL: url("http://evil.com/"))
        }
        #expect(throws: CookieRefusal.domainMismatch("www.example.com")) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=www.example.com", responseURL: url("http://example.com/"))
        }
        // An address is its own domain: no suffix of it matches.
        #expect(throws: CookieRefusal.domainMismatch("0.0.1")) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=0.0.1", responseURL: url("http://127.0.0.1/"))
        }
        #expect(throws: CookieRefusal.nonASCIIDomain) {
            try jar.storeCookie(fromSetCookieValue: "a=1; Domain=exämple.com", responseURL: url("http://xn--exmple-cua.com/"))
        }
    }

    @Test func addressesKeepTheirOwnCookies() throws {
        let jar = try jar([("a=1; Domain=127.0.0.1", "http://127.0.0.1:8080/"), ("b=2", "http://[::1]:8080/")])
        #expect(jar.cookieHeaderValue(for: url("http://127.0.0.1:9/")) == "a=1")
        #expect(jar.cookieHeaderValue(for: url("http://[::1]/")) == "b=2")
        #expect(jar.cookieHeaderValue(for: url("http://127.0.0.2/")) == nil)
    }

    @Test func pathsMatchAtSlashesAndDefaultToTheDirectory() throws {
        let jar = try jar([
            ("root=1; Path=/", "http://h.example/"),
            ("docs=2; Path=/docs", "http://h.example/"),
            ("dir=3", "http://h.example/docs/guide/page.html"),  // default path /docs/guide
        ])
        #expect(jar.cookieHeaderValue(for: url("http://h.example/docs")) == "docs=2; root=1")
        #expect(jar.cookieHeaderValue(for: url("http://h.example/docs/")) == "docs=2; root=1")
        #expect(jar.cookieHeaderValue(for: url("http://h.example/docsearch")) == "root=1")
        #expect(jar.cookieHeaderValue(for: url("http://h.example/docs/guide/other")) == "dir=3; docs=2; root=1")
        #expect(jar.cookieHeaderValue(for: url("http://h.example/docs/guidebook")) == "docs=2; root=1")
        #expect(StoredCookie.defaultPath(of: "") == "/")
        #expect(StoredCookie.defaultPath(of: "/file") == "/")
        #expect(StoredCookie.defaultPath(of: "/a/b/") == "/a/b")
    }

    @Test func orderIsLongerPathThenOlder() throws {
        let jar = try jar([("b=1", "http://h.example/"), ("a=2", "http://h.example/"), ("deep=3; Path=/x/y", "http://h.example/"),
                           ("mid=4; Path=/x", "http://h.example/")])
        #expect(jar.cookieHeaderValue(for: url("http://h.example/x/y/z")) == "deep=3; mid=4; b=1; a=2")
        // Replacing a cookie keeps its place (its creation time).
        try jar.storeCookie(fromSetCookieValue: "b=9", responseURL: url("http://h.example/"))
        #expect(jar.cookieHeaderValue(for: url("http://h.example/")) == "b=9; a=2")
    }

    @Test func secureCookiesNeedASecureOriginAndGoOnlyOverOne() throws {
        let jar = CookieJar()
        #expect(throws: CookieRefusal.insecureOrigin) {
            try jar.storeCookie(fromSetCookieValue: "s=1; Secure", responseURL: url("http://h.example/"))
        }
        try jar.storeCookie(fromSetCookieValue: "s=1; Secure", responseURL: url("https://h.example/"))
        #expect(jar.cookieHeaderValue(for: url("https://h.example/")) == "s=1")
        #expect(jar.cookieHeaderValue(for: url("wss://h.example/")) == "s=1")
        #expect(jar.cookieHeaderValue(for: url("http://h.example/")) == nil)
        // An insecure origin may neither replace nor shadow it.
        #expect(throws: CookieRefusal.shadowsSecureCookie("s")) {
            try jar.storeCookie(fromSetCookieValue: "s=evil", responseURL: url("http://h.example/"))
        }
        #expect(throws: CookieRefusal.shadowsSecureCookie("s")) {
            try jar.storeCookie(fromSetCookieValue: "s=evil; Path=/deeper", responseURL: url("http://h.example/"))
        }
        #expect(jar.cookieHeaderValue(for: url("https://h.example/deeper")) == "s=1")
        // A secure origin may replace it.
        try jar.storeCookie(fromSetCookieValue: "s=2", responseURL: url("https://h.example/"))
        #expect(jar.cookieHeaderValue(for: url("http://h.example/")) == "s=2")
    }

    @Test func prefixesKeepTheirRules() throws {
        let jar = CookieJar()
        let secure = url("https://h.example/")
        try jar.storeCookie(fromSetCookieValue: "__Secure-a=1; Secure", responseURL: secure)
        try jar.storeCookie(fromSetCookieValue: "__Host-b=2; Secure; Path=/", responseURL: secure)
        #expect(throws: CookieRefusal.prefixRules("__Secure-")) {
            try jar.storeCookie(fromSetCookieValue: "__Secure-c=1", responseURL: secure)
        }
        #expect(throws: CookieRefusal.prefixRules("__Host-")) {
            try jar.storeCookie(fromSetCookieValue: "__Host-d=1; Secure; Path=/; Domain=h.example", responseURL: secure)
        }
        #expect(throws: CookieRefusal.prefixRules("__Host-")) {
            try jar.storeCookie(fromSetCookieValue: "__host-e=1; Secure; Path=/x", responseURL: secure)
        }
        #expect(throws: CookieRefusal.prefixRules("__Host-")) {
            try jar.storeCookie(fromSetCookieValue: "__HOST-f=1; Secure", responseURL: url("https://h.example/dir/page"))
        }
        // A nameless cookie may not pass for a prefixed one.
        #expect(throws: CookieRefusal.prefixRules("__Secure-")) {
            try jar.storeCookie(fromSetCookieValue: "=__Secure-g=1; Secure", responseURL: secure)
        }
        #expect(throws: CookieRefusal.prefixRules("__Host-")) {
            try jar.storeCookie(fromSetCookieValue: "__host-g=1; Secure; Path=/", responseURL: secure) as Void
            try jar.storeCookie(fromSetCookieValue: "__HOST-x; Secure; Path=/", responseURL: secure)
        }
        #expect(throws: CookieRefusal.insecureOrigin) {
            try jar.storeCookie(fromSetCookieValue: "__Secure-h=1", responseURL: url("http://h.example/"))
        }
        #expect(jar.cookieHeaderValue(for: secure) == "__Secure-a=1; __Host-b=2; __host-g=1")
    }

    @Test func expiryDeletesAndIsCappedAt400Days() throws {
        let jar = try jar([("a=1; Max-Age=3600", "http://h.example/"), ("b=2", "http://h.example/")])
        try jar.storeCookie(fromSetCookieValue: "a=gone; Max-Age=0", responseURL: url("http://h.example/"))
        try jar.storeCookie(fromSetCookieValue: "b=gone; Expires=Thu, 01 Jan 1970 00:00:01 GMT", responseURL: url("http://h.example/"))
        #expect(jar.count == 0)
        // Max-Age wins over Expires, in either order.
        try jar.storeCookie(fromSetCookieValue: "c=1; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:01 GMT", responseURL: url("http://h.example/"))
        #expect(jar.cookieHeaderValue(for: url("http://h.example/")) == "c=1")
        let before = Date()
        try jar.storeCookie(fromSetCookieValue: "far=1; Max-Age=999999999999", responseURL: url("http://h.example/"))
        try jar.storeCookie(fromSetCookieValue: "date=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT", responseURL: url("http://h.example/"))
        let after = Date()
        for cookie in jar.cookies where cookie.name != "c" {
            let expiry = try #require(cookie.expiresDate)
            #expect(expiry >= before.addingTimeInterval(400 * 86_400) && expiry <= after.addingTimeInterval(400 * 86_400))
        }
    }

    @Test func theAppsCookiesKeepTheDomainRules() throws {
        let jar = CookieJar()
        let suffix = try #require(HTTPCookie(properties: [.name: "a", .value: "1", .domain: ".co.uk", .path: "/"]))
        #expect(throws: CookieRefusal.publicSuffix("co.uk")) { try jar.setCookie(suffix) }
        let domain = try #require(HTTPCookie(properties: [.name: "d", .value: "1", .domain: ".example.com", .path: "/"]))
        let host = try #require(HTTPCookie(properties: [.name: "h", .value: "2", .domain: "example.com", .path: "/"]))
        try jar.setCookie(domain)
        try jar.setCookie(host)
        #expect(jar.cookieHeaderValue(for: url("http://www.example.com/")) == "d=1")
        #expect(jar.cookieHeaderValue(for: url("http://example.com/")) == "d=1; h=2")
        // setCookies(_:for:) keeps only what that URL could set.
        let other = try #require(HTTPCookie(properties: [.name: "o", .value: "1", .domain: "other.org", .path: "/"]))
        jar.setCookies([other, try #require(HTTPCookie(properties: [.name: "w", .value: "3", .domain: "www.example.com", .path: "/"]))],
                       for: url("http://www.example.com/"))
        #expect(jar.cookieHeaderValue(for: url("http://other.org/")) == nil)
        #expect(jar.cookieHeaderValue(for: url("http://www.example.com/")) == "d=1; w=3")
        jar.deleteCookie(domain)
        #expect(jar.cookieHeaderValue(for: url("http://www.example.com/")) == "w=3")
        let names = jar.cookies(for: url("http://example.com/")).map(\.name)
        #expect(names == ["h"])
        jar.removeAll()
        #expect(jar.count == 0 && jar.cookies.isEmpty)
    }

    @Test func cookiesComeOutAsFoundationCookies() throws {
        let jar = try jar([("a=1; Domain=example.com; Path=/p; Secure; HttpOnly; Max-Age=60", "https://www.example.com/")])
        let cookie = try #require(jar.cookies.first)
        #expect(cookie.name == "a" && cookie.value == "1" && cookie.domain == ".example.com" && cookie.path == "/p")
        #expect(cookie.isSecure && cookie.isHTTPOnly && !cookie.isSessionOnly)
    }
}
