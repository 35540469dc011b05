import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The decisions after an attempt ends on a redirect a hook decides, or on a 401: whether to try again,
/// and with what request or credential.
extension ResponseStateMachine {
    /// What to do with a redirect when a hook decides redirects.
    enum RedirectAction: Equatable {
        /// Not a redirect to follow: the response completes the task.
        case none
        /// The chain reached ``Configuration/maximumRedirects``.
        case tooManyRedirects
        case refuse(Refusal)
        /// Ask the hook about this request (origin-bound fields removed across origins, the method
        /// rewritten for 303, and for 301/302 after POST).
        case propose(URLRequest)
    }

    /// The limit on failed credentials for one task before a 401 completes it.
    static let maximumAuthenticationFailures = 8

    /// Whether the finished attempt's last response may lead to another attempt (a redirect or a 401).
    var mayRetry: Bool {
        guard let status = lastHead?.statusCode else { return false }
        return Self.isRedirect(status) || status == 401
    }

    /// Where a hook-decided redirect would go after `response` to `request` (the request just sent).
    func redirect(after response: HTTPURLResponse, of request: URLRequest) -> RedirectAction {
        let status = response.statusCode
        guard configuration.followsRedirectsManually, Self.isRedirect(status),
              let location = response.value(forHTTPHeaderField: "Location"),
              let target = URL(string: location, relativeTo: response.url ?? request.url)?.absoluteURL else {
            return .none
        }
        guard redirectCount < configuration.maximumRedirects else { return .tooManyRedirects }
        let current = request.url ?? target
        if let refused = RedirectRules.refusal(from: current, to: target,
                                               refusesDowngrade: configuration.refusesInsecureRedirects) {
            return .refuse(Refusal(code: refused, url: target))
        }
        var proposed = RedirectRules.proposedRequest(request, to: target)
        let method = (proposed.httpMethod ?? "GET").uppercased()
        if status == 303 || ((status == 301 || status == 302) && method == "POST") {
            if method != "HEAD" { proposed.httpMethod = "GET" }
            proposed.httpBody = nil
            proposed.setValue(nil, forHTTPHeaderField: "Content-Type")
            proposed.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        return .propose(proposed)
    }

    /// The hook chose `next` for a redirect of `request`: why it may not be sent (the same rules as any
    /// redirect), or nil after counting the redirect. A scheme other than http(s) fails later, when the
    /// request is configured, with -1002.
    mutating func redirectChosen(_ next: URLRequest, from request: URLRequest) -> Refusal? {
        if let chosen = next.url, let current = request.url, RedirectRules.isAllowedScheme(chosen),
           let refused = RedirectRules.refusal(from: current, to: chosen,
                                               refusesDowngrade: configuration.refusesInsecureRedirects) {
            return Refusal(code: refused, url: chosen)
        }
        redirectCount += 1
        return nil
    }

    /// The challenge to put to the handler after `response`, or nil when it is not one to answer (not a
    /// 401, no readable `WWW-Authenticate`, or too many failures). A credential is proposed, and its
    /// failures counted, only for the protection space it answered: another origin's or realm's
    /// challenge is new to the handler.
    func challenge(after response: HTTPURLResponse) -> HTTPAuthenticationChallenge? {
        guard response.statusCode == 401, authenticationFailures < Self.maximumAuthenticationFailures,
              let space = HTTPAuthenticationChallenge(response: response, previousFailureCount: 0,
                                                      proposedCredential: nil)?.protectionSpace else { return nil }
        let bound = credential.flatMap { $0.answers(space) ? $0 : nil }
        return HTTPAuthenticationChallenge(
            response: response, previousFailureCount: bound == nil ? 0 : authenticationFailures,
            proposedCredential: bound?.credential)
    }

    /// The handler answered `challenge` with `answer`: the next attempt sends it to that space's origin only.
    mutating func credentialChosen(_ answer: URLCredential, for challenge: HTTPAuthenticationChallenge) {
        authenticationFailures += 1
        credential = BoundCredential(answer, for: challenge.protectionSpace)
    }
}
