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
///   so its cookies are accepted.
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
