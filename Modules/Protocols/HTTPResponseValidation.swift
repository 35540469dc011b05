import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The outcome of ``HTTPResponseValidation/validate(_:data:)``.
///
/// As in AFNetworking, a response can be invalid without an error: an unacceptable content type with
/// an empty body fails validation silently.
public struct ResponseValidationResult: Sendable {
    /// Whether the response passed.
    public let isValid: Bool
    /// The error describing the failure, in ``URLResponseSerializationErrorDomain``; `nil` when valid
    /// or when the failure carries no error.
    public let error: NSError?
}

/// AFNetworking's response validation rule (`-[AFHTTPResponseSerializer validateResponse:data:error:]`),
/// shared by every response serializer (including the image serializer in its own module).
///
/// Only `HTTPURLResponse`s are checked; anything else is valid.
/// - Content type: fails when ``acceptableContentTypes`` is non-nil, the response's MIME type is not in
///   it, and not (no MIME type and an empty body). Only a non-empty body yields an error: code -1016
///   (`NSURLErrorCannotDecodeContentData`), `Request failed: unacceptable content-type: <mime>`.
/// - Status: fails when the code is not in ``acceptableStatusCodes``: code -1011
///   (`NSURLErrorBadServerResponse`), `Request failed: <reason phrase> (<code>)`, with the content-type
///   error, if any, as its `NSUnderlyingErrorKey`.
/// - userInfo: `NSURLErrorFailingURLErrorKey`, ``NetworkingOperationFailingURLResponseErrorKey``,
///   and ``NetworkingOperationFailingURLResponseDataErrorKey`` when there is data.
///
/// Threading: a value type; safe to share.
public struct HTTPResponseValidation: Sendable, Hashable, Codable {
    /// Acceptable status codes; `nil` accepts any. Default 200..<300.
    public var acceptableStatusCodes: IndexSet?
    /// Acceptable MIME types; `nil` accepts any. Default `nil`.
    public var acceptableContentTypes: Set<String>?

    /// Creates a rule; the defaults are AFNetworking's (2xx, any content type).
    public init(acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300),
                acceptableContentTypes: Set<String>? = nil) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates `response` and `data`.
    public func validate(_ response: URLResponse?, data: Data?) -> ResponseValidationResult {
        guard let response = response as? HTTPURLResponse else { return ResponseValidationResult(isValid: true, error: nil) }
        let body = data ?? Data()
        var isValid = true
        var validationError: NSError?

        if let acceptable = acceptableContentTypes {
            let mimeType = response.mimeType
            let accepted = mimeType.map { acceptable.contains($0) } ?? false
            if !accepted && !(mimeType == nil && body.isEmpty) {
                if !body.isEmpty, let url = response.url {
                    var userInfo = Self.userInfo(url: url, response: response, data: body)
                    userInfo[NSLocalizedDescriptionKey] = "Request failed: unacceptable content-type: \(mimeType ?? "(null)")"
                    validationError = NSError(domain: URLResponseSerializationErrorDomain,
                                              code: URLError.cannotDecodeContentData.rawValue, userInfo: userInfo)
                }
                isValid = false
            }
        }

        if let acceptable = acceptableStatusCodes, !acceptable.contains(response.statusCode), let url = response.url {
            var userInfo = Self.userInfo(url: url, response: response, data: data)
            let phrase = HTTPStatusReasonPhrase.phrase(for: response.statusCode)
            userInfo[NSLocalizedDescriptionKey] = "Request failed: \(phrase) (\(response.statusCode))"
            if let underlying = validationError { userInfo[NSUnderlyingErrorKey] = underlying }
            validationError = NSError(domain: URLResponseSerializationErrorDomain,
                                      code: URLError.badServerResponse.rawValue, userInfo: userInfo)
            isValid = false
        }
        return ResponseValidationResult(isValid: isValid, error: isValid ? nil : validationError)
    }

    private static func userInfo(url: URL, response: HTTPURLResponse, data: Data?) -> [String: Any] {
        var userInfo: [String: Any] = [
            NSURLErrorFailingURLErrorKey: url,
            NetworkingOperationFailingURLResponseErrorKey: response,
        ]
        if let data { userInfo[NetworkingOperationFailingURLResponseDataErrorKey] = data }
        return userInfo
    }
}

/// The English reason phrases AFNetworking's error descriptions use (Apple's
/// `+[NSHTTPURLResponse localizedStringForStatusCode:]`, lower case), fixed so messages are the same
/// on every platform; Linux Foundation's own table differs ("Not Found" where Apple says "not found").
public enum HTTPStatusReasonPhrase {
    /// The phrase for `statusCode`; codes without their own phrase get their class's
    /// ("informational", "success", "redirected", "client error", "server error").
    public static func phrase(for statusCode: Int) -> String {
        if let phrase = phrases[statusCode] { return phrase }
        switch statusCode {
        case 100..<200: return "informational"
        case 200..<300: return "success"
        case 300..<400: return "redirected"
        case 400..<500: return "client error"
        case 500..<600: return "server error"
        default: return "unknown"
        }
    }

    private static let phrases: [Int: String] = [
        100: "continue", 101: "switching protocols",
        200: "no error", 201: "created", 202: "accepted", 203: "non-authoritative information",
        204: "no content", 205: "reset content", 206: "partial content",
        300: "multiple choices", 301: "moved permanently", 302: "found", 303: "see other",
        304: "not modified", 305: "needs proxy", 307: "temporarily redirected", 308: "permanent redirect",
        400: "bad request", 401: "unauthorized", 402: "payment required", 403: "forbidden",
        404: "not found", 405: "method not allowed", 406: "unacceptable", 407: "proxy authentication required",
        408: "request timed out", 409: "conflict", 410: "no longer exists", 411: "length required",
        412: "precondition failed", 413: "request too large", 414: "requested URL too long",
        415: "unsupported media type", 416: "requested range not satisfiable", 417: "expectation failed",
        500: "internal server error", 501: "unimplemented", 502: "bad gateway", 503: "service unavailable",
        504: "gateway timed out", 505: "unsupported version",
    ]
}
