#if Observability
import AFProtocols
import Foundation

/// Metric labels and span names come from bounded sets: a request's method, however made up, adds no
/// series and no span name beyond the registered methods and `_OTHER`.
extension RequestTelemetry {
    /// The methods metrics and span names carry by name: RFC 9110's and PATCH (RFC 5789), as
    /// OpenTelemetry's HTTP semantic conventions register them. Methods are uppercased, as sent.
    static let registeredMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
                                                  "TRACE", "PATCH"]
    /// The label of every other method, of other errors' codes (OpenTelemetry's `_OTHER`).
    static let otherLabel = "_OTHER"
    /// The span name of a request whose method is not registered (OpenTelemetry's: `HTTP`).
    static let otherMethodSpanName = "HTTP"
    /// The bytes of `http.request.method_original` kept (whole characters).
    static let maximumOriginalMethodBytes = 64

    /// `method` (uppercased) as a metric label and `http.request.method`: itself when registered, else `_OTHER`.
    static func methodLabel(_ method: String) -> String {
        registeredMethods.contains(method) ? method : otherLabel
    }

    /// `method`'s first ``maximumOriginalMethodBytes`` bytes (whole scalars): `http.request.method_original`.
    static func boundedOriginalMethod(_ method: String) -> String {
        var bytes = 0
        var kept = String.UnicodeScalarView()
        for scalar in method.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maximumOriginalMethodBytes else { break }
            kept.append(scalar)
        }
        return String(kept)
    }

    /// `method` as log lines show it: itself when it is an RFC 9110 token (all the engine sends), else its
    /// ``boundedOriginalMethod(_:)`` escaped as a Swift literal (`"GET\r\nX"`): the request is refused
    /// before anything is sent, but its log lines come first and must not be split by a CR or LF.
    static func loggableMethod(_ method: String) -> String {
        HTTPFieldSyntax.isToken(method) ? method : boundedOriginalMethod(method).debugDescription
    }

    /// The `status_class` label of a response's `status`: `1xx` to `5xx`, else `_OTHER` (the engine's
    /// parser reads at most three digits, but a custom `URLProtocol` may answer any integer).
    static func statusClassLabel(_ status: Int) -> String {
        (100 ... 599).contains(status) ? "\(status / 100)xx" : otherLabel
    }

    /// The `code` label of `af_http_client_errors_total` and the span's `error.type`: the code of a
    /// URLError (Foundation's codes, -1 to -3999) or of an `InvalidRequestError` (`InvalidRequestErrorDomain`), else `_OTHER` (a
    /// custom `URLProtocol`'s error, say).
    static func errorCodeLabel(_ error: any Error) -> String {
        let error = error as NSError
        switch error.domain {
        case NSURLErrorDomain where (-3999 ... -1).contains(error.code), InvalidRequestErrorDomain: return "\(error.code)"
        default: return otherLabel
        }
    }
}
#endif
