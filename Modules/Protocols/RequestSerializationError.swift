import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a request could not be serialized.
///
/// Bridges to `NSError` in ``URLRequestSerializationErrorDomain`` with AFNetworking's codes, a
/// localized description, a failure reason, the failing request under
/// ``NetworkingOperationFailingURLRequestErrorKey`` and, when there is one, the underlying error under
/// `NSUnderlyingErrorKey`.
public struct RequestSerializationError: Error, Sendable, CustomNSError, LocalizedError, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The parameters have no JSON form (a set, NaN or infinity): code -1016
        /// (`NSURLErrorCannotDecodeContentData`), as AFJSONRequestSerializer reports it.
        case invalidJSON
        /// The parameters have no property-list form (a null, a set, a non-string key): code -1016.
        case invalidPropertyList
        /// A Foundation object tree could not be turned into parameters (a date, a non-string key): code -1016.
        case unsupportedParameters
        /// The query or body text cannot be represented in the serializer's `stringEncoding`: code -1016.
        case stringNotEncodable(String.Encoding)
        /// The URL string (or the URL with the query appended) is not a valid URL: code -1000 (`NSURLErrorBadURL`).
        case invalidURL(String)
    }

    /// What went wrong.
    public let reason: Reason
    /// The request that failed to serialize, when one had been built.
    public let request: URLRequest?
    /// The error the underlying serializer reported (JSONSerialization, PropertyListSerialization, ...).
    public let underlyingError: (any Error & Sendable)?

    /// Creates an error.
    public init(_ reason: Reason, request: URLRequest? = nil, underlyingError: (any Error & Sendable)? = nil) {
        self.reason = reason
        self.request = request
        self.underlyingError = underlyingError
    }

    public static var errorDomain: String { URLRequestSerializationErrorDomain }

    public var errorCode: Int {
        switch reason {
        case .invalidURL: return NSURLErrorBadURL
        case .invalidJSON, .invalidPropertyList, .unsupportedParameters, .stringNotEncodable:
            return NSURLErrorCannotDecodeContentData
        }
    }

    /// AFNetworking's failure reason for the case (its exact wording where AF has one).
    public var failureReason: String? {
        switch reason {
        case .invalidJSON: return "The `parameters` argument is not valid JSON."
        case .invalidPropertyList: return "The `parameters` argument is not a valid property list."
        case .unsupportedParameters: return "The `parameters` argument cannot be represented as parameters."
        case .stringNotEncodable(let encoding): return "The serialized parameters cannot be encoded as \(encoding)."
        case .invalidURL(let string): return "\(string) is not a valid URL."
        }
    }

    public var errorDescription: String? { "Request failed: \(failureReason ?? "serialization error")" }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: errorDescription ?? ""]
        if let failureReason { info[NSLocalizedFailureReasonErrorKey] = failureReason }
        if let request { info[NetworkingOperationFailingURLRequestErrorKey] = request }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }

    public var description: String {
        "RequestSerializationError(\(reason)\(underlyingError.map { ", underlying: \($0)" } ?? ""))"
    }
}
