import Foundation

/// The error domain of request serialization failures (AFURLRequestSerializationErrorDomain).
public let URLRequestSerializationErrorDomain = "com.alamofire.error.serialization.request"

/// The error domain of response validation and parsing failures (AFURLResponseSerializationErrorDomain).
public let URLResponseSerializationErrorDomain = "com.alamofire.error.serialization.response"

/// userInfo key of a request serialization error: the request that failed to serialize
/// (AFNetworkingOperationFailingURLRequestErrorKey).
public let NetworkingOperationFailingURLRequestErrorKey = "com.alamofire.serialization.request.error.response"

/// userInfo key of a response serialization error: the `URLResponse` (AFNetworkingOperationFailingURLResponseErrorKey).
public let NetworkingOperationFailingURLResponseErrorKey = "com.alamofire.serialization.response.error.response"

/// userInfo key of a response serialization error: the response body `Data`
/// (AFNetworkingOperationFailingURLResponseDataErrorKey).
public let NetworkingOperationFailingURLResponseDataErrorKey = "com.alamofire.serialization.response.error.data"

extension NSError {
    /// The error chain through `NSUnderlyingErrorKey`, starting with this error.
    public var underlyingErrorChain: [NSError] {
        var chain: [NSError] = [self]
        while let next = chain.last?.userInfo[NSUnderlyingErrorKey] as? NSError, chain.count < 64 {
            chain.append(next)
        }
        return chain
    }
}

/// The error domain of requests the engine refuses to send because a part of them would forge or break
/// the request's lines on the wire (AFCore's `InvalidRequestError`, codes 1 to 3).
public let InvalidRequestErrorDomain = "com.alamofire.error.request.invalid"

/// userInfo key of a URL error's failing URL as a string: `NSURLErrorFailingURLStringErrorKey`'s value
/// (the constant itself is deprecated in Foundation, but SPEC section 4 asks for the key).
package let failingURLStringErrorKey = "NSErrorFailingURLStringKey"
