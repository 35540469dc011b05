#if Observability
import AFProtocols
import Foundation

/// What telemetry (log lines, span attributes and recorded errors, metric labels) may carry of a request:
/// URLs without credentials or query values, no credential header values, and labels from bounded sets.
extension RequestTelemetry {
    /// A URL as telemetry reports it, and the parts it lost (the strings no report may contain).
    struct Redaction: Sendable {
        /// The URL without user, password and fragment, each query value replaced by `…` (unless kept).
        let loggable: String
        /// The user, password, fragment and (unless kept) query values removed, percent-encoded and decoded.
        let removed: [String]
    }

    /// The one rule for URLs in telemetry: `url` without its user, password and fragment, and with each
    /// query value replaced by `…` unless `queryValues` (tokens travel in queries).
    static func redaction(of url: URL, queryValues: Bool) -> Redaction {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return Redaction(loggable: "-", removed: [url.absoluteString])
        }
        var removed = [components.percentEncodedUser, components.user, components.percentEncodedPassword,
                       components.password, components.percentEncodedFragment, components.fragment].compactMap { $0 }
        components.user = nil
        components.password = nil
        components.fragment = nil
        guard !queryValues, let items = components.percentEncodedQueryItems else {
            return Redaction(loggable: components.string ?? "-", removed: removed)
        }
        removed += items.compactMap(\.value) + items.compactMap { $0.value?.removingPercentEncoding }
        components.percentEncodedQuery = nil
        let query = items.map { $0.value == nil ? $0.name : $0.name + "=…" }.joined(separator: "&")
        return Redaction(loggable: (components.string ?? "-") + "?" + query, removed: removed)
    }

    /// `url` as log lines and spans show it (``redaction(of:queryValues:)``).
    static func loggable(_ url: URL, queryValues: Bool) -> String {
        redaction(of: url, queryValues: queryValues).loggable
    }

    /// The request headers whose values are credentials: never in a report.
    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// The values of the credential headers among `fields`, whole and in parts (an authorization's credentials
    /// after its scheme, each cookie's value).
    static func credentialHeaderValues(of fields: [(name: String, value: String)]) -> [String] {
        var values: [String] = []
        for (name, value) in fields where credentialHeaders.contains(name.lowercased()) {
            values.append(value)
            if name.lowercased() == "cookie" {
                values += value.split(separator: ";").compactMap { pair in
                    pair.firstIndex(of: "=").map { String(pair[pair.index(after: $0)...]) }
                }
            } else if let space = value.firstIndex(of: " ") {
                values.append(String(value[value.index(after: space)...]))
            }
        }
        return values
    }

    /// Removed parts shorter than this are not searched for in an error's text (a value `1` would
    /// garble every address and port there); whole URLs always are replaced.
    static let shortestScrubbedSecret = 4

    /// `error` as a span records it (a tracing backend exports its description as `exception.message`):
    /// its domain and code; its description and failure reason with every URL it names (the request's,
    /// `request`, and the error's failing URL) in its ``loggable(_:queryValues:)`` form, and then each
    /// part those URLs lost and each of `secrets` (credential header values) replaced by `…`; its
    /// failing URL string in loggable form. Nothing else of its `userInfo` (underlying errors, resume
    /// data, server trust) is kept.
    static func recordable(_ error: any Error, request: URL, secrets: [String], queryValues: Bool) -> any Error {
        let error = error as NSError
        let failing = (error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)
            ?? (error.userInfo[failingURLStringErrorKey] as? String).flatMap { URL(string: $0) }
        let urls = [request] + (failing.map { [$0] } ?? [])
        let redactions = urls.map { ($0, redaction(of: $0, queryValues: queryValues)) }
        let hidden = (redactions.flatMap(\.1.removed) + secrets).filter { $0.count >= shortestScrubbedSecret }
        func scrubbed(_ text: String) -> String {
            var text = text
            for (url, redaction) in redactions {
                for form in [url.absoluteString, url.absoluteString.removingPercentEncoding].compactMap({ $0 }) {
                    text = text.replacingOccurrences(of: form, with: redaction.loggable)
                }
            }
            for secret in hidden.sorted(by: { $0.count > $1.count }) {
                text = text.replacingOccurrences(of: secret, with: "…")
            }
            return text
        }
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: scrubbed(error.localizedDescription)]
        if let reason = error.localizedFailureReason { userInfo[NSLocalizedFailureReasonErrorKey] = scrubbed(reason) }
        if failing != nil { userInfo[failingURLStringErrorKey] = redactions[1].1.loggable }
        if error.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: error.code) {
            return URLError(code, userInfo: userInfo)
        }
        return NSError(domain: error.domain, code: error.code, userInfo: userInfo)
    }
}
#endif
