import AFCore
import AFMultipart
import AFProtocols
import AFReachability
import AFRequestSerialization
import AFResponseSerialization
import AFSecurity
import Foundation

// AFNetworking's defaults for the 2.x operation manager, composed here because AFCore cannot import the
// serializer modules (the dependency rule).

extension HTTPRequestOperationManager {
    /// Creates a manager for `baseURL` with AFNetworking 2.x's defaults: `HTTPRequestSerializer`,
    /// `JSONResponseSerializer` (as AFHTTPRequestOperationManager; a bare `HTTPRequestOperation` keeps
    /// AFHTTPResponseSerializer's behaviour), `MultipartFormRequestBuilder` for multipart POSTs,
    /// `SecurityPolicy/default` and `NetworkReachabilityManager/shared` (not started).
    public convenience init(baseURL: URL? = nil) {
        self.init(baseURL: baseURL, requestSerializer: HTTPRequestSerializer(),
                  responseSerializer: SessionManagerDefaults.responseSerializer())
        multipartFormRequestBuilder = MultipartFormRequestBuilder()
        securityPolicy = SecurityPolicy.default
        reachabilityManager = NetworkReachabilityManager.shared
    }
}
