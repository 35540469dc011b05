import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A Foundation `HTTPCookieStorage` a configuration names, as the engine consults a jar: Foundation's
/// parser and matching, with the domain rule Foundation on Linux lacks (``responseMaySet(_:from:)``).
///
/// Threading: `HTTPCookieStorage` serializes its own work; this adds no state.
final class FoundationCookieJar: CookieStoring, @unchecked Sendable {
    // @unchecked Sendable: HTTPCookieStorage is not marked Sendable, but every one of its methods runs on
    // its own serial queue, so calls from any thread are safe.
    let storage: HTTPCookieStorage

    init(storage: HTTPCookieStorage) {
        self.storage = storage
    }

    func cookieHeaderValue(for url: URL) -> String? {
        guard let cookies = storage.cookies(for: url), !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    func storeCookies(fromSetCookieValues values: [String], responseURL url: URL) {
        var cookies: [HTTPCookie] = []
        for value in values {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url)
                .filter { Self.responseMaySet($0, from: url) }
        }
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }

    func cookies(for url: URL) -> [HTTPCookie] {
        storage.cookies(for: url) ?? []
    }

    /// Whether a response from `responseURL` may set `cookie` (RFC 6265 §5.3): its domain must be the
    /// response's host or, for a host name, a parent of it with at least two labels. Foundation on Linux
    /// stores a cookie for any domain it names, so without this a hostile server could plant cookies
    /// that the session would then send to another site.
    static func responseMaySet(_ cookie: HTTPCookie, from responseURL: URL) -> Bool {
        guard var host = responseURL.host?.lowercased(), !host.isEmpty else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var domain = cookie.domain.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        if domain == host { return true }
        // An address is its own domain; a single label ("com", "local") is no one's to set.
        let isAddress = host.utf8.contains(UInt8(ascii: ":")) || host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
        guard !isAddress, domain.utf8.contains(UInt8(ascii: ".")) else { return false }
        return host.hasSuffix("." + domain)
    }
}
