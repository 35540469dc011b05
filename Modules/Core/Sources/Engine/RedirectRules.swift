import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a redirect may do, decided the same way whether libcurl follows it or the redirect hook does.
enum RedirectRules {
    /// The schemes a request or a redirect may use.
    static func isAllowedScheme(_ url: URL) -> Bool { isAllowedScheme(lowercased: url.scheme?.lowercased()) }

    /// ``isAllowedScheme(_:)`` for a scheme already read and lowercased (each read parses the URL again).
    static func isAllowedScheme(lowercased scheme: String?) -> Bool {
        switch scheme {
        case "http", "https": true
        default: false
        }
    }

    /// Why following a redirect from `current` to `target` is refused, or nil to follow it:
    /// - a scheme other than http and https: `URLError(.unsupportedURL)` (-1002);
    /// - https to http while a pinning policy is set (`refusesDowngrade`): the request would leave in
    ///   clear text and pinning would stop applying, so `URLError(.appTransportSecurityRequiresSecureConnection)`
    ///   (-1022), the code Apple's platforms give a clear-text load their policy forbids.
    static func refusal(from current: URL, to target: URL, refusesDowngrade: Bool) -> URLError.Code? {
        guard isAllowedScheme(target) else { return .unsupportedURL }
        if refusesDowngrade, current.scheme?.lowercased() == "https", target.scheme?.lowercased() == "http" {
            return .appTransportSecurityRequiresSecureConnection
        }
        return nil
    }

    /// The header fields a request carries to its own origin only.
    static let originBoundFields = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// The request proposed to the redirect hook: `request` sent to `target`, without the origin-bound
    /// fields when `target` is another origin (cookies for it come from cookie storage when it is sent).
    static func proposedRequest(_ request: URLRequest, to target: URL) -> URLRequest {
        var proposed = request
        proposed.url = target
        if let from = request.url.flatMap(Origin.init), from != Origin(target) {
            for name in originBoundFields { proposed.setValue(nil, forHTTPHeaderField: name) }
        }
        return proposed
    }
}
