import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFCore
import HTTPTypes

/// The lean path in swift-http-types' currency: `HTTPRequest` in, `HTTPResponse` out, the shapes of
/// HTTPTypesFoundation's URLSession extension, on this engine (the same limits, cache, cookies, pinning,
/// proxies, interceptors and cancellation as the `URLRequest` calls).
///
/// No `HTTPURLResponse` is built for the answer: the response's fields come from the header lines as
/// libcurl delivered them, in order, with repeated fields kept apart and values as the server wrote
/// them (corelibs' `HTTPURLResponse` initializer alone costs about 20 µs for eight fields); an answer from
/// the session's cache has the fields its stored `HTTPURLResponse` kept (one per name). The request's
/// fields go out the same way: a line per field, in order, repeated names apart and names spelled as
/// given. No `URLRequest` is built for the request either, unless something has to read one: an
/// interceptor (it sees the request as a `URLRequest`, and a field it adds or changes goes out as that
/// request has it), a redirect the engine follows, a response the cache stores or revalidates, a
/// `URLProtocol` class the session routes through, or a tracer's span.
extension LeanSession {
    /// Performs `request` and returns the body and the response.
    ///
    /// `interceptor` (default: the session's) adapts each attempt and decides retries; it sees the request
    /// as a `URLRequest`.
    /// - Throws: `URLError`: -1000 `badURL` for a request without a scheme, authority or path, -1017
    ///   `cannotParseResponse` for a response field whose name is not an HTTP token (which `HTTPFields`
    ///   cannot hold), the transport's errors as the `URLRequest` call `data(for:interceptor:)` throws them.
    public func data(for request: HTTPRequest, interceptor: (any RequestInterceptor)? = nil) async throws
        -> (Data, HTTPResponse) {
        try await body(of: request, sending: nil, interceptor: interceptor)
    }

    /// Sends `bodyData` with `request` (its method as given) and returns the response body and the response.
    /// - Throws: as ``data(for:interceptor:)->(_,HTTPResponse)``.
    public func upload(for request: HTTPRequest, from bodyData: Data, interceptor: (any RequestInterceptor)? = nil)
        async throws -> (Data, HTTPResponse) {
        try await body(of: request, sending: DataBodySource(bodyData), interceptor: interceptor)
    }

    /// Sends the file at `fileURL` with `request`, read in bounded chunks.
    /// - Throws: the file's error when it cannot be opened, else as ``data(for:interceptor:)->(_,HTTPResponse)``.
    public func upload(for request: HTTPRequest, fromFile fileURL: URL, interceptor: (any RequestInterceptor)? = nil)
        async throws -> (Data, HTTPResponse) {
        try await body(of: request, sending: try FileBodySource(fileURL: fileURL), interceptor: interceptor)
    }

    /// Downloads `request`'s body to a new file in `URLSessionManager.downloadDirectory` and returns its
    /// URL and the response. The file is the caller's: move or remove it.
    /// - Throws: as ``data(for:interceptor:)->(_,HTTPResponse)``.
    public func download(for request: HTTPRequest, interceptor: (any RequestInterceptor)? = nil) async throws
        -> (URL, HTTPResponse) {
        let fieldRequest = try FieldRequest(request)
        let outcome = try await fieldOutcome(of: fieldRequest, sending: nil, download: true, interceptor: interceptor)
        guard let file = outcome.temporaryFile else { throw CurlErrorMapping.error(.cannotCreateFile, url: fieldRequest.url) }
        do {
            return (file, try Self.httpResponse(of: outcome.head, url: fieldRequest.url))
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    /// Starts `request` and returns once the final response's head arrived, with its body as chunks
    /// that arrive while you read them, under the same backpressure as the `URLRequest` call `bytes(for:bufferSize:)`
    /// (at most about `bufferSize` bytes wait for you; default 1 MiB).
    /// - Throws: as ``data(for:interceptor:)->(_,HTTPResponse)`` before the head; the sequence throws after it.
    public func bytes(for request: HTTPRequest, bufferSize: Int = 1 << 20) async throws -> (LeanResponseBody, HTTPResponse) {
        let fieldRequest = try FieldRequest(request)
        let (body, head) = try await streamedFields(fieldRequest, bufferSize: bufferSize)
        // Without a response the body is dropped here, which cancels the transfer.
        guard let response = head.httpResponse else { throw Self.unparsableFields(url: fieldRequest.url) }
        return (body, response)
    }

    /// Sends `body` with `request` as the body produces it and returns once the final response's head
    /// arrived, with its body as chunks under the same backpressure (a streaming request and a streaming
    /// response at once, as a generated OpenAPI client's transport needs). A body of unknown length goes
    /// out chunked.
    /// - Throws: as ``data(for:interceptor:)->(_,HTTPResponse)`` before the head; the sequence throws after it.
    public func bytes(for request: HTTPRequest, uploading body: any BodySource, bufferSize: Int = 1 << 20) async throws
        -> (LeanResponseBody, HTTPResponse) {
        let fieldRequest = try FieldRequest(request)
        let (stream, head) = try await streamedFields(fieldRequest, sending: body, bufferSize: bufferSize)
        guard let response = head.httpResponse else { throw Self.unparsableFields(url: fieldRequest.url) }
        return (stream, response)
    }

    /// Performs `request`, sending `source` when given, and returns the response body and the response.
    private func body(of request: HTTPRequest, sending source: (any BodySource)?,
                      interceptor: (any RequestInterceptor)?) async throws -> (Data, HTTPResponse) {
        let fieldRequest = try FieldRequest(request)
        let outcome = try await fieldOutcome(of: fieldRequest, sending: source, download: false, interceptor: interceptor)
        return (outcome.data ?? Data(), try Self.httpResponse(of: outcome.head, url: fieldRequest.url))
    }

    // MARK: Conversions

    /// The response of a call's final `head`, built from its header lines.
    static func httpResponse(of head: ResponseHead?, url: URL?) throws -> HTTPResponse {
        guard let head else { throw CurlErrorMapping.error(.badServerResponse, url: url) }
        guard let response = head.httpResponse else { throw unparsableFields(url: url) }
        return response
    }

    private static func unparsableFields(url: URL?) -> URLError {
        CurlErrorMapping.error(.cannotParseResponse, url: url,
                               description: "A response field name is not an HTTP token, which HTTPFields cannot hold.")
    }
}

extension ResponseHead {
    /// The head as swift-http-types' response: its status and reason phrase, and a field per header line
    /// in arrival order (repeated names kept apart, values as sent but for a NUL, which becomes a space as
    /// `HTTPField`'s lenient values have it); nil when a name is not an HTTP token or the status is not one.
    var httpResponse: HTTPResponse? {
        guard (0...999).contains(statusCode) else { return nil }
        var fields = HTTPFields()
        fields.reserveCapacity(headerLineCount)  // one allocation, not one per doubling
        let complete = forEachHeaderLine { name, value in
            guard let fieldName = KnownFieldNames.name(name) ?? HTTPField.Name(String(decoding: name, as: UTF8.self)) else {
                return false
            }
            fields.append(Self.field(fieldName, UnsafeBufferPointer(rebasing: value)))
            return true
        }
        guard complete else { return nil }
        return HTTPResponse(status: KnownStatuses.status(code: statusCode, reasonPhrase: reasonPhrase), headerFields: fields)
    }

    /// The field of a header line, its value kept as sent. A value of printable ASCII with no space at
    /// either end (nearly all of them) is already legal, so it is decoded directly: the lenient
    /// initializer validates UTF-8 through the standard library's unspecialized generic, which looks up
    /// type metadata at run time for every value. The result is the same field either way.
    private static func field(_ name: HTTPField.Name, _ value: UnsafeBufferPointer<UInt8>) -> HTTPField {
        guard isPrintableASCII(value) else { return HTTPField(name: name, lenientValue: value) }
        return HTTPField(name: name, value: String(decoding: value, as: UTF8.self))
    }

    /// Whether every byte is printable ASCII (a space included) and neither end is a space: such a value
    /// is one `HTTPField` keeps as it is. A tab or any other byte sends the value the lenient way, which
    /// makes the same field of it.
    ///
    /// Eight bytes are checked at a time (the last word overlapping the one before): a byte loop cost
    /// about 14 instructions a byte, some 200 a field; this costs about 50.
    static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
        let count = bytes.count
        guard base[0] != 0x20, base[count - 1] != 0x20 else { return false }
        let raw = UnsafeRawPointer(base)
        if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                guard isPrintable(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) else { return false }
                offset += 8
            }
            return isPrintable(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        if count >= 4 {
            let head = UInt64(raw.loadUnaligned(as: UInt32.self))
            let tail = UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return isPrintable(head << 32 | tail)
        }
        return bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    /// Whether each of the word's bytes is in 0x20...0x7E. `below` is nonzero exactly when some byte is
    /// under 0x20 (a borrow only starts at such a byte), `above` exactly when some byte is over 0x7E (a
    /// carry only starts at 0xFF, whose own top bit is already set).
    private static func isPrintable(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, tops: UInt64 = 0x8080_8080_8080_8080
        let below = (word &- 0x20 &* ones) & ~word & tops
        let above = ((word &+ ones) | word) & tops
        return below | above == 0
    }
}
