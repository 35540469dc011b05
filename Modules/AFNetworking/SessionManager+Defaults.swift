import AFCore
import AFMultipart
import AFProtocols
import AFRequestSerialization
import AFResponseSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// AFNetworking's defaults for the session managers, composed here because AFCore cannot import the
// serializer modules (the dependency rule).

extension URLSessionManager {
    /// Creates a manager with AFNetworking's defaults on a session with `configuration` (nil: the default
    /// configuration): ``JSONResponseSerializer`` decodes responses.
    public convenience init(sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        self.init(sessionConfiguration: configuration, responseSerializer: SessionManagerDefaults.responseSerializer())
    }
}

extension HTTPSessionManager {
    /// Creates a manager for `baseURL` with AFNetworking's defaults: ``HTTPRequestSerializer``,
    /// ``JSONResponseSerializer`` and ``MultipartFormRequestBuilder`` for multipart POSTs.
    public convenience init(baseURL: URL? = nil, sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        self.init(baseURL: baseURL, sessionConfiguration: configuration, requestSerializer: HTTPRequestSerializer(),
                  responseSerializer: SessionManagerDefaults.responseSerializer())
        multipartFormRequestBuilder = MultipartFormRequestBuilder()
    }
}

/// The default components, in one place.
enum SessionManagerDefaults {
    static func responseSerializer() -> any ResponseSerializing { JSONResponseSerializer() }
}
