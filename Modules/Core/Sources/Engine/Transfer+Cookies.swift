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
        guard !lines.isEmpty, let jar = settings.cookies.jar, acceptsCookies(from: url) else { return }
        jar.storeCookies(fromSetCookieValues: lines, responseURL: url)
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
