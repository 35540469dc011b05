import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The request as an upload sends it, on every API: POST unless it names another method, its
    /// `httpBody` dropped (the upload's source is the body). Made before an interceptor sees the request,
    /// so a retry is judged on the method sent.
    var asUpload: URLRequest {
        var request = self
        if request.httpMethod == nil || request.httpMethod == "GET" { request.httpMethod = "POST" }
        request.httpBody = nil
        return request
    }
}
