import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols
import Synchronization

/// A Foundation `HTTPCookieStorage` a configuration names, as the engine consults a jar: Foundation's
/// parser and matching, with the domain rule Foundation on Linux lacks (``responseMaySet(_:from:)``).
///
/// Threading: `HTTPCookieStorage` serializes its own work; this adds no state.
final class FoundationCookieJar: CookieStoring, @unchecked Sendable {
    // @unchecked Sendable: HTTPCookieStorage is not marked Sendable, but every one of its methods runs on
    // its own serial queue, so calls from any thread are safe.
    let storage: HTTPCookieStorage
    /// Bumped after every store through this jar (the engine's, from responses; a caller's through
    /// `URLSessionManager.cookieStorage`): a header looked up beforehand (``preparedHeader(for:)``) is
    /// used only while it is unchanged.
    private let storeGeneration = Atomic<Int>(0)

    init(storage: HTTPCookieStorage) {
        self.storage = storage
    }

    /// The Cookie header for `url`, looked up now (on the thread that starts a task: Foundation's lookup
    /// costs about 4,000 instructions, a queue hop included, which the engine thread then saves).
    func preparedHeader(for url: URL) -> PreparedCookieHeader {
        // Read before the lookup: a store that lands during it makes the header stale, never wrongly current.
        let generation = storeGeneration.load(ordering: .acquiring)
        return PreparedCookieHeader(url: url, value: cookieHeaderValue(for: url), generation: generation)
    }

    /// Whether no store went through this jar since `prepared` was looked up.
    func isCurrent(_ prepared: PreparedCookieHeader) -> Bool {
        storeGeneration.load(ordering: .acquiring) == prepared.generation
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
        guard !cookies.isEmpty else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
        storeGeneration.add(1, ordering: .releasing)
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

/// A request's Cookie header looked up before the engine configured it, and the jar's store count then.
/// Cookies written to the `HTTPCookieStorage` directly, while a task starts, race with it as they do in
/// URLSession; every store the session makes is counted.
struct PreparedCookieHeader: Sendable {
    let url: URL
    let value: String?
    let generation: Int
}
