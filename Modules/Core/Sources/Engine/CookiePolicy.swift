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

    /// The storage whose cookies `request` sends, or nil when it sends none.
    func storageSending(for request: URLRequest) -> HTTPCookieStorage? {
        guard sendsStoredCookies, request.httpShouldHandleCookies else { return nil }
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
        let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
        guard !isAddress, domain.contains(".") else { return false }
        return host.hasSuffix("." + domain)
    }

    /// Whether cookies set by a response to `request` from `responseURL` may be stored.
    func acceptsCookies(from responseURL: URL, for request: URLRequest) -> Bool {
        guard storage != nil, request.httpShouldHandleCookies else { return false }
        switch acceptPolicy {
        case .always: return true
        case .never: return false
        case .onlyFromMainDocumentDomain:
            guard let main = request.mainDocumentURL?.host?.lowercased() else { return true }
            guard let host = responseURL.host?.lowercased() else { return false }
            return host == main || host.hasSuffix("." + main) || main.hasSuffix("." + host)
        @unknown default: return false
        }
    }
}
