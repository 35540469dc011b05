import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The lean path's calls for a request made of plain header lines (``FieldRequest``), on which
/// AFHTTPTypes builds the `HTTPRequest` calls: the same engine, limits, cache, cookies, pinning, proxies,
/// interceptors and cancellation as the `URLRequest` calls, and no `URLRequest` built unless something
/// has to read one.
extension LeanSession {
    /// What a field call ends with: its body, in memory or in a file, and the final response's head.
    package struct FieldOutcome: Sendable {
        package let data: Data?
        package let temporaryFile: URL?
        package let head: ResponseHead?
    }

    /// Performs `request`, sending `source` when given, into memory or (`download`) a file. Without an
    /// interceptor (the call's or the session's) the request goes out as it is; an interceptor sees, and
    /// may change, a `URLRequest` made from it.
    package func fieldOutcome(of request: FieldRequest, sending source: (any BodySource)?, download: Bool,
                              interceptor: (any RequestInterceptor)?) async throws -> FieldOutcome {
        let outcome: Outcome
        if interceptor != nil || manager.retrySettings.interceptor != nil {
            outcome = try await attempts(request.makeURLRequest(), interceptor) {
                try await perform(.foundation($0, lines: request.fieldLines), source: source, download: download)
            }
        } else {
            outcome = try await perform(.fields(request), source: source, download: download)
        }
        return FieldOutcome(data: outcome.data, temporaryFile: outcome.temporaryFile,
                            head: outcome.task.updateStorage { $0.responseHead })
    }

    /// Starts `request`, sending `source` when given, and returns once the final response's head arrived,
    /// with its body as chunks under the backpressure of `bytes(for:bufferSize:)`.
    package func streamedFields(_ request: FieldRequest, sending source: (any BodySource)? = nil,
                                bufferSize: Int) async throws -> (LeanResponseBody, ResponseHead) {
        try await streamed(.fields(request), sending: source, bufferSize: bufferSize)
    }
}
