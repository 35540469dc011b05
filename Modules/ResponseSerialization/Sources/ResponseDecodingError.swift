import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// userInfo key of a response decoding error: the parser's own error (a `JSONSerialization` or
/// `PropertyListSerialization` `NSError`, an ``XMLParsingError``, a `DecodingError`).
public let ResponseSerializationParserErrorKey = "com.alamofire.serialization.response.error.parser"

/// Builds the error a decoding serializer returns when the body does not parse.
///
/// The error is in ``URLResponseSerializationErrorDomain`` with code -1016
/// (`NSURLErrorCannotDecodeContentData`) and the parser's message as its description; as in
/// AFNetworking's `AFErrorWithUnderlyingError`, a validation error (a failed status) becomes its
/// `NSUnderlyingErrorKey`. The parser's typed error is under ``ResponseSerializationParserErrorKey``.
enum ResponseDecodingError {
    static func make(format: String, parserError: any Error, parserMessage: String,
                     validationError: NSError?, response: URLResponse?, data: Data?) -> NSError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: "Request failed: the response is not valid \(format): \(parserMessage)",
            ResponseSerializationParserErrorKey: parserError,
        ]
        if let url = response?.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        if let response { userInfo[NetworkingOperationFailingURLResponseErrorKey] = response }
        if let data { userInfo[NetworkingOperationFailingURLResponseDataErrorKey] = data }
        if let validationError { userInfo[NSUnderlyingErrorKey] = validationError }
        return NSError(domain: URLResponseSerializationErrorDomain,
                       code: URLError.cannotDecodeContentData.rawValue, userInfo: userInfo)
    }
}
