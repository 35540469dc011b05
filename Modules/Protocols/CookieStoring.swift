import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cookie jar as a session's engine consults it: the `Cookie` field a request sends, and the
/// `Set-Cookie` fields a response brings (the seam AFCookies' `CookieJar` is built on).
///
/// Install one through AFCore's `SessionPlugins.cookieStorage`: it then stands in for Foundation's shared
/// `HTTPCookieStorage` wherever a session's configuration names that storage (as
/// `URLSessionConfiguration.default` does). A configuration that names another `HTTPCookieStorage` keeps
/// it. The session's cookie policies (`httpShouldSetCookies`, `httpCookieAcceptPolicy`, a request's
/// `httpShouldHandleCookies` and `mainDocumentURL`) are applied before the jar is asked.
///
/// Threading: every method may be called from any thread; the engine calls them on its own thread, once
/// per request attempt and once per response, so they must not block on I/O.
public protocol CookieStoring: AnyObject, Sendable {
    /// The value of the `Cookie` field a request to `url` sends (`name=value` pairs joined by `"; "`), or
    /// nil when no stored cookie applies.
    func cookieHeaderValue(for url: URL) -> String?

    /// Stores the cookies that the `Set-Cookie` field values `values` of a response from `url` set, as
    /// the jar's rules allow (a value the rules refuse is ignored, never an error).
    func storeCookies(fromSetCookieValues values: [String], responseURL url: URL)

    /// The stored cookies a request to `url` would send, in the order it sends them.
    func cookies(for url: URL) -> [HTTPCookie]
}
