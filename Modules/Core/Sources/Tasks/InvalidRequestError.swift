import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request the engine refuses to send because a part of it would forge or break the request's lines
/// on the wire: checked before anything is sent, so the server sees nothing of it.
///
/// Bridges to `NSError` in `InvalidRequestErrorDomain` (codes 1 to 3, one per ``Reason``) with a
/// localized description naming the offending part and `NSURLErrorFailingURLErrorKey`.
public struct InvalidRequestError: Error, Sendable, Equatable, CustomNSError, LocalizedError {
    /// What is wrong with the request.
    public enum Reason: Sendable, Equatable {
        /// The HTTP method is not an RFC 9110 token (empty, or holding a space, CR, LF, NUL or a delimiter).
        case invalidMethod(String)
        /// A header field name is not an RFC 9110 token (a request's header, or one of the session's
        /// `httpAdditionalHeaders`).
        case invalidHeaderName(String)
        /// A header field value holds CR, LF or NUL (the field is named).
        case invalidHeaderValue(name: String)
    }

    /// What is wrong.
    public let reason: Reason
    /// The request's URL.
    public let url: URL?

    /// Creates an error.
    public init(_ reason: Reason, url: URL?) {
        self.reason = reason
        self.url = url
    }

    public static var errorDomain: String { InvalidRequestErrorDomain }

    public var errorCode: Int {
        switch reason {
        case .invalidMethod: 1
        case .invalidHeaderName: 2
        case .invalidHeaderValue: 3
        }
    }

    public var errorDescription: String? {
        switch reason {
        case .invalidMethod(let method):
            "The HTTP method \(method.debugDescription) is not a valid token."
        case .invalidHeaderName(let name):
            "The header field name \(name.debugDescription) is not a valid token."
        case .invalidHeaderValue(let name):
            "The value of the header field \(name.debugDescription) contains a line break or NUL."
        }
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: errorDescription ?? ""]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        return info
    }

    /// Checks `request`'s method and header fields; throws the first offence found.
    static func check(_ request: URLRequest) throws(InvalidRequestError) {
        if let method = request.httpMethod, !HTTPFieldSyntax.isToken(method) {
            throw InvalidRequestError(.invalidMethod(method), url: request.url)
        }
        guard let fields = request.allHTTPHeaderFields else { return }
        for (name, value) in fields {
            try checkField(name: name, value: value, url: request.url)
        }
    }

    /// Checks one header field; throws when it could not be sent as one line.
    static func checkField(name: String, value: String, url: URL?) throws(InvalidRequestError) {
        guard HTTPFieldSyntax.isToken(name) else { throw InvalidRequestError(.invalidHeaderName(name), url: url) }
        guard HTTPFieldSyntax.isFieldValue(value) else {
            throw InvalidRequestError(.invalidHeaderValue(name: name), url: url)
        }
    }
}
