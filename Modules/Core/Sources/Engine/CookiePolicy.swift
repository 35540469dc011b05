import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

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
/// - which of the cookies a response sets are kept is the jar's rule (``FoundationCookieJar``'s for a
///   Foundation storage).
struct CookiePolicy: Sendable {
    /// nil: the session keeps no cookies.
    let jar: (any CookieStoring)?
    /// `jar` when it is a Foundation storage's: its header can be looked up before the engine needs it
    /// (``FoundationCookieJar/preparedHeader(for:)``).
    let foundationJar: FoundationCookieJar?
    let sendsStoredCookies: Bool
    let acceptPolicy: HTTPCookie.AcceptPolicy

    /// The policy of `configuration`; `sharedStandIn` (a plugin's jar) replaces Foundation's shared
    /// storage where the configuration names it.
    init(configuration: URLSessionConfiguration, sharedStandIn: (any CookieStoring)? = nil) {
        if let storage = configuration.httpCookieStorage {
            if let sharedStandIn, storage === HTTPCookieStorage.shared {
                jar = sharedStandIn
                foundationJar = nil
            } else {
                let foundation = FoundationCookieJar(storage: storage)
                jar = foundation
                foundationJar = foundation
            }
        } else {
            jar = nil
            foundationJar = nil
        }
        sendsStoredCookies = configuration.httpShouldSetCookies
        acceptPolicy = configuration.httpCookieAcceptPolicy
    }

    /// The jar whose cookies a request sends, or nil when it sends none.
    /// `handlesCookies`: the request's `httpShouldHandleCookies` (true for an `HTTPRequest`).
    func jarSending(handlesCookies: Bool) -> (any CookieStoring)? {
        guard sendsStoredCookies, handlesCookies else { return nil }
        return jar
    }

    /// Whether cookies set by a response from `responseURL` may be stored, for a request whose
    /// `httpShouldHandleCookies` is `handlesCookies` and whose `mainDocumentURL` is `mainDocumentURL`.
    func acceptsCookies(from responseURL: URL, handlesCookies: Bool, mainDocumentURL: URL?) -> Bool {
        guard jar != nil, handlesCookies else { return false }
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
