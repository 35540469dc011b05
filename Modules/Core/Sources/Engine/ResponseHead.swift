import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response's status line and headers as the engine parsed them, turned into an `HTTPURLResponse`
/// only when first asked for: Foundation's initializer costs more than the rest of a small request's
/// engine work, so it runs off the engine thread (usually on the processing queue) or not at all.
final class ResponseHead: @unchecked Sendable {
    // @unchecked Sendable: the stored properties are immutable values; the built response is cached
    // under a lock, and HTTPURLResponse is immutable once created.
    let url: URL
    let statusCode: Int
    let httpVersion: String
    let headerFields: [String: String]
    private let built = Protected<HTTPURLResponse?>(nil)

    init(url: URL, statusCode: Int, httpVersion: String, headerFields: [String: String]) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.headerFields = headerFields
    }

    /// The response (built once).
    var response: HTTPURLResponse? {
        built.withLock { response in
            if response == nil {
                response = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion,
                                           headerFields: headerFields)
            }
            return response
        }
    }
}
