import Foundation

/// The jar's parsers and rules, reached without a server by the fuzz target `Fuzz/Sources/SetCookieParse`:
/// an SPI, not API.
@_spi(Fuzzing) public enum CookieFuzzing {
    /// Parses each of `lines` as a `Set-Cookie` value from `url` into a small jar (8 cookies a domain, 20 in
    /// all), asks it for `url`'s `Cookie` header, writes its file text and reads it back; checks every
    /// invariant on the way and stops the process (`preconditionFailure`) when one breaks.
    public static func check(lines: [String], from url: URL) {
        let limits = CookieJar.Limits(maximumCookiesPerDomain: 8, maximumCookies: 20, maximumCookieSize: 64)
        for line in lines {
            if let parsed = try? SetCookie(parsing: line, maximumNameValueSize: limits.maximumCookieSize) {
                precondition(parsed.name.utf8.count + parsed.value.utf8.count <= limits.maximumCookieSize)
                precondition(!parsed.name.isEmpty || !parsed.value.isEmpty)
                precondition(parsed.path.map { $0.utf8.first == UInt8(ascii: "/") } ?? true)
            }
        }
        let jar = CookieJar(limits: limits)
        jar.storeCookies(fromSetCookieValues: lines, responseURL: url)
        let now = Date()
        let stored = jar.state.withLock { $0.store.allCookies(now: now) }
        precondition(stored.count <= limits.maximumCookies && jar.count <= limits.maximumCookies)
        let host = CookieJar.Origin(url)?.host
        for cookie in stored {
            precondition(cookie.domain == host || StoredCookie.domainMatches(host: host ?? "", domain: cookie.domain),
                         "a cookie for a domain the host is not in")
            precondition(cookie.isHostOnly || !jar.suffixes.isPublicSuffix(cookie.domain), "a public suffix's cookie")
            precondition(cookie.name.utf8.count + cookie.value.utf8.count <= limits.maximumCookieSize)
        }
        if let header = jar.cookieHeaderValue(for: url) {
            precondition(!header.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "a control byte in the header")
        }
        // The file text reads back to the same persistent cookies.
        let persistent = stored.filter(\.isPersistent)
        var store = CookieStore(limits: limits)
        let report = CookieFile.decode(CookieFile.encode(persistent), limits: limits, suffixes: jar.suffixes, into: &store, now: now)
        let back = store.allCookies(now: now)
        precondition(report.stored == back.count && back.count <= persistent.count)
        for (a, b) in zip(persistent.filter { cookie in back.contains { $0.isSameCookie(as: cookie) } }, back) {
            precondition(a.isSameCookie(as: b) && a.value == b.value && a.isSecure == b.isSecure, "the file changed a cookie")
        }
    }
}
