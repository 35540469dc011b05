// The jar's bounds (Chromium's: 180 a domain, 3,300 in all, 4,096 bytes a cookie): a response or a
// run of responses with thousands of cookies leaves the jar within them, keeping the most recently used.
@testable import AFCookies
import Foundation
import Testing

@Suite("Cookies: bounds")
struct CookieJarBoundsTests {
    private let host = URL(string: "http://h.example/")!

    private func names(_ jar: CookieJar, _ url: URL) -> [String] {
        (jar.cookieHeaderValue(for: url) ?? "").split(separator: ";").map {
            String($0.trimmingCharacters(in: .whitespaces).split(separator: "=")[0])
        }
    }

    @Test func tenThousandCookiesFromOneResponseLeaveTheNewestWithinTheDomainBound() {
        let jar = CookieJar()
        jar.storeCookies(fromSetCookieValues: (0..<10_000).map { "c\($0)=\($0); Max-Age=86400" }, responseURL: host)
        // Over 180 the domain is purged to 150, then fills again: 150 + (10,000 - 181) % 31 = 173.
        #expect(jar.count == 173)
        #expect(names(jar, host) == (9_827..<10_000).map { "c\($0)" })
    }

    @Test func aCookieSentRecentlySurvivesAPurge() {
        let jar = CookieJar()
        jar.storeCookies(fromSetCookieValues: ["old=1; Path=/kept"] + (0..<179).map { "c\($0)=1; Path=/other" },
                         responseURL: host)
        #expect(jar.count == 180)
        // Sending "old" makes it the most recently used of the 180.
        #expect(jar.cookieHeaderValue(for: URL(string: "http://h.example/kept")!) == "old=1")
        jar.storeCookies(fromSetCookieValues: ["new=1"], responseURL: host)
        #expect(jar.count == 150)
        // The oldest unused went: c0 to c30.
        #expect(Set(jar.cookies.map(\.name)) == Set(["old", "new"] + (31..<179).map { "c\($0)" }))
    }

    @Test func theWholeJarIsBoundAcrossDomains() {
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 10, maximumCookies: 110))
        for site in 0..<20 {
            jar.storeCookies(fromSetCookieValues: (0..<10).map { "c\($0)=\(site)" },
                             responseURL: URL(string: "http://site\(site).example/")!)
        }
        // The 111th cookie purges the jar to 110 - 110 / 11 = 100, and so does every 11th after it: the
        // 200th leaves 100 + (200 - 111) % 11 = 101.
        #expect(jar.count == 101)
        // The oldest sites went first.
        #expect(jar.cookieHeaderValue(for: URL(string: "http://site0.example/")!) == nil)
        #expect(names(jar, URL(string: "http://site19.example/")!).count == 10)
    }

    @Test func subdomainsShareTheirRegistrableDomainsBound() {
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 12))
        for sub in 0..<20 {
            jar.storeCookies(fromSetCookieValues: ["c=\(sub)"], responseURL: URL(string: "http://s\(sub).example.co.uk/")!)
        }
        // 13 cookies in example.co.uk purge it to 12 - 2 = 10; 20 end at 10 + (20 - 13) % 3 = 11.
        #expect(jar.count == 11)
    }

    @Test func theCookieSizeBoundIsSettable() throws {
        let jar = CookieJar(limits: .init(maximumCookieSize: 8))
        try jar.storeCookie(fromSetCookieValue: "abc=12345", responseURL: host)
        #expect(throws: CookieRefusal.tooLarge(9)) { try jar.storeCookie(fromSetCookieValue: "abc=123456", responseURL: host) }
        #expect(jar.count == 1)
    }

    @Test func limitsAreClampedToWhatCanWork() {
        let limits = CookieJar.Limits(maximumCookiesPerDomain: 0, maximumCookies: -5, maximumCookieSize: 0, maximumLifetime: .zero)
        #expect(limits == CookieJar.Limits(maximumCookiesPerDomain: 1, maximumCookies: 1, maximumCookieSize: 1, maximumLifetime: .seconds(1)))
        #expect(limits.domainCountAfterPurge == 1 && limits.countAfterPurge == 1)
    }
}
