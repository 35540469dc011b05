/// Two fixed rules the state machine's callers ask before and after a response: which statuses are
/// redirects, and whether libcurl decodes the body.
extension ResponseStateMachine {
    /// Whether `status` is a redirect libcurl or the redirect hook follows (a switch: an array literal
    /// here may be allocated on every response).
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// Whether libcurl should ask for compressed bodies and decode them: only when neither the request nor
    /// the session names its own Accept-Encoding (then the caller decodes). Names are lowercased.
    static func decodesContent(requestHeaderNames: Set<String>, sessionHeaderNames: Set<String>) -> Bool {
        !requestHeaderNames.contains("accept-encoding") && !sessionHeaderNames.contains("accept-encoding")
    }
}
