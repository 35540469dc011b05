import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The cookies a transfer's response sets.
extension Transfer {
    /// Stores the cookies the response from `url` sets, as the session's cookie policy allows.
    func storeCookies(url: URL) {
        let lines = machine.setCookieLines
        guard !lines.isEmpty, let storage = settings.cookies.storage,
              acceptsCookies(from: url) else { return }
        var cookies: [HTTPCookie] = []
        for line in lines {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url)
                .filter { CookiePolicy.responseMaySet($0, from: url) }
        }
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }

    /// Whether cookies the response from `url` sets may be stored (read without building a request).
    private func acceptsCookies(from url: URL) -> Bool {
        if unchangedFieldRequest != nil {
            return settings.cookies.acceptsCookies(from: url, handlesCookies: true, mainDocumentURL: nil)
        }
        return settings.cookies.acceptsCookies(from: url, handlesCookies: request.httpShouldHandleCookies,
                                               mainDocumentURL: request.mainDocumentURL)
    }
}
