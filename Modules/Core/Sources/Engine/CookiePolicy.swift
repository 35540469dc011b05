import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which cookies a request sends and which of its response's cookies are stored, from the session's
/// `httpCookieStorage`, `httpShouldSetCookies` and `httpCookieAcceptPolicy` and the request's
/// `httpShouldHandleCookies` and `mainDocumentURL`, as URLSession applies them:
/// - a request that does not handle cookies neither sends nor stores any;
/// - `httpShouldSetCookies` decides only whether stored cookies are sent (an explicit `Cookie` header is
///   always the caller's);
/// - the accept policy decides what is stored: everything, nothing, or, for
///   `onlyFromMainDocumentDomain`, cookies of responses whose host is the main document's host or shares
///   its domain (one is the other or a subdomain of it). A request without a main document is its own,
///   so its cookies are accepted;
/// - a cookie is stored only for the responding host or a parent domain of it (``responseMaySet(_:from:)``).
struct CookiePolicy: Sendable {
    /// nil: the session keeps no cookies.
    let storage: HTTPCookieStorage?
    let sendsStoredCookies: Bool
    let acceptPolicy: HTTPCookie.AcceptPolicy

    init(configuration: URLSessionConfiguration) {
        storage = configuration.httpCookieStorage
        sendsStoredCookies = configuration.httpShouldSetCookies
        acceptPolicy = configuration.httpCookieAcceptPolicy
    }

    /// The storage whose cookies a request sends, or nil when it sends none.
    /// `handlesCookies`: the request's `httpShouldHandleCookies` (true for an `HTTPRequest`).
    func storageSending(handlesCookies: Bool) -> HTTPCookieStorage? {
        guard sendsStoredCookies, handlesCookies else { return nil }
        return storage
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

    /// Whether cookies set by a response from `responseURL` may be stored, for a request whose
    /// `httpShouldHandleCookies` is `handlesCookies` and whose `mainDocumentURL` is `mainDocumentURL`.
    func acceptsCookies(from responseURL: URL, handlesCookies: Bool, mainDocumentURL: URL?) -> Bool {
        guard storage != nil, handlesCookies else { return false }
        switch acceptPolicy {
        case .always: return true
        case .never: return false
        case .onlyFromMainDocumentDomain:
            guard let main = mainDocumentURL?.host?.lowercased() else { return true }
            guard let host = responseURL.host?.lowercased() else { return false }
            return host == main || host.hasSuffix("." + main) || main.hasSuffix("." + host)
        @unknown default: return false
        }
    }
}
