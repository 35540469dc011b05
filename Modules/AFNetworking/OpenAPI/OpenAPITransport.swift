import AFCore
import AFHTTPTypes
import AFStandardPlugins
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` on AFCore's engine, for clients made by
/// swift-openapi-generator: requests and responses stream both ways, with the session's pinning, TLS
/// settings, proxies, cookies, cache and observability.
///
/// - Requests: the operation's path and query are joined onto `baseURL`; header fields go out as they
///   are, a line each; an `HTTPBody` is sent as it produces (never collected first), with
///   `Content-Length` when its length is known, else chunked, read with backpressure.
/// - Responses: the head in swift-http-types' currency (fields in arrival order, repeated ones such as
///   `Set-Cookie` apart); the body a single-pass `HTTPBody` that streams as it arrives, under the lean
///   path's backpressure, its length known only when the server sent `Content-Length` and no
///   `Content-Encoding`. A body past ``Configuration/maximumBodySize`` fails the read with
///   `URLError(.dataLengthExceedsMaximum)` (the runtime collects typed JSON bodies without a bound of its
///   own).
/// - Cancelling the calling task, or dropping the response body, cancels the transfer. Errors are the
///   transport's `URLError`s, which the runtime wraps in its `ClientError`.
///
/// Threading: a value; use it from any task.
public struct OpenAPITransport: ClientTransport {
    /// How the transport bounds what it reads.
    public struct Configuration: Sendable {
        /// The largest response body read, in bytes; nil: the session's
        /// `TransferLimits.maximumBodySize` (256 MiB by default); `Int64.max` for none.
        public var maximumBodySize: Int64?
        /// The most response bytes waiting for the reader before the transfer pauses (default 1 MiB).
        public var bufferSize = 1 << 20

        /// The defaults above.
        public init(maximumBodySize: Int64? = nil) {
            self.maximumBodySize = maximumBodySize
        }
    }

    /// The session requests run on.
    public let manager: URLSessionManager
    /// The transport's bounds.
    public var configuration: Configuration
    private let baseURLParts = BaseURLPartsCache()

    /// A transport on `manager`'s session.
    public init(manager: URLSessionManager, configuration: Configuration = Configuration()) {
        self.manager = manager
        self.configuration = configuration
    }

    /// A transport on a session of its own with `URLSessionConfiguration.default` and the standard
    /// plugins (observability, URLProtocol stubs, the HTTP cache).
    public init(configuration: Configuration = Configuration()) {
        self.init(manager: URLSessionManager(sessionConfiguration: .default, responseSerializer: HTTPResponseSerializer(),
                                             plugins: .standard),
                  configuration: configuration)
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
        -> (HTTPResponse, HTTPBody?) {
        let outgoing = try baseURLParts.parts(of: baseURL).joined(request)
        let stream: LeanResponseBody
        let response: HTTPResponse
        if let body {
            let length: Int64? = if case .known(let count) = body.length { count } else { nil }
            let source = AsyncSequenceBodySource(body, contentLength: length, maximumBufferedBytes: configuration.bufferSize)
            (stream, response) = try await manager.session.bytes(for: outgoing, uploading: source,
                                                                 bufferSize: configuration.bufferSize)
        } else {
            (stream, response) = try await manager.session.bytes(for: outgoing, bufferSize: configuration.bufferSize)
        }
        if request.method == .head { return (response, nil) }
        let limit = configuration.maximumBodySize ?? manager.transferLimits.maximumBodySize ?? Int64.max
        let length = Self.bodyLength(of: response)
        return (response, HTTPBody(BoundedChunks(stream, limit: limit, url: baseURL), length: length,
                                   iterationBehavior: .single))
    }

    /// The body's length as the runtime should see it: known only from a single `Content-Length` of
    /// digits alone (RFC 9110's `1*DIGIT`: no sign, no blank) on a body that was not content-decoded. One
    /// pass over the fields: `HTTPFields`' subscript by name builds an index of all of them first.
    static func bodyLength(of response: HTTPResponse) -> HTTPBody.Length {
        var contentLength: Int64?
        var lengths = 0
        for field in response.headerFields {
            if field.name == .contentEncoding { return .unknown }
            if field.name == .contentLength {
                lengths += 1
                let digitsOnly = field.value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                contentLength = digitsOnly ? Int64(field.value) : nil  // nil past Int64.max too
            }
        }
        return lengths == 1 ? contentLength.map { .known($0) } ?? .unknown : .unknown
    }
}

/// The response body's chunks as the runtime reads them, failing once more than `limit` bytes came.
struct BoundedChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let body: LeanResponseBody
    let limit: Int64
    let url: URL?

    init(_ body: LeanResponseBody, limit: Int64, url: URL?) {
        self.body = body
        self.limit = limit
        self.url = url
    }

    func makeAsyncIterator() -> Iterator { Iterator(body: body.makeAsyncIterator(), limit: limit, url: url) }

    struct Iterator: AsyncIteratorProtocol {
        var body: LeanResponseBody.Iterator
        let limit: Int64
        let url: URL?
        var received: Int64 = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let chunk = try await body.next() else { return nil }
            received += Int64(chunk.count)
            guard received <= limit else {
                throw URLError(.dataLengthExceedsMaximum, userInfo: [
                    NSLocalizedDescriptionKey: "The response body is larger than the transport's limit of \(limit) bytes.",
                    NSURLErrorFailingURLErrorKey: url as Any,
                ])
            }
            return ArraySlice(chunk)
        }
    }
}
