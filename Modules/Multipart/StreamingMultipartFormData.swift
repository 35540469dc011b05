import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects the parts of a multipart/form-data body (AFStreamingMultipartFormData) and produces a
/// request whose body streams them: ``requestByFinalizingMultipartFormData()``.
///
/// Wire format: `--B\r\n` before the first part, `\r\n--B\r\n` between parts, `\r\n--B--\r\n` after the
/// last; each part is its headers (`Name: value\r\n`, in a fixed order: `Content-Disposition`, then
/// `Content-Type`), an empty line, and its bytes.
///
/// Threading: not thread-safe; use it on one thread (inside the `constructingBodyWith` closure).
public final class StreamingMultipartFormData: MultipartFormData {
    /// The boundary, `Boundary+%08X%08X` by default.
    public let boundary: String
    /// The request the body belongs to.
    public let request: URLRequest
    private var parts: [MultipartBodyPart] = []
    private var throttle: BandwidthThrottle?
    /// The first part refused because a header would forge lines on the wire (a MIME type or header
    /// value with CR, LF or NUL, a header name that is not a token); nil while every part was valid. A
    /// refused part is not appended: ``MultipartFormRequestBuilder`` throws this error, and
    /// ``bodySource`` fails with it when opened, so nothing is sent either way.
    public private(set) var refusal: MultipartFormDataError?

    /// Creates an empty form for `request`.
    /// - Parameters:
    ///   - request: the request the form's body and Content-Type are for.
    ///   - boundary: the part boundary; a fresh random ``makeBoundary()`` by default.
    public init(request: URLRequest, boundary: String = StreamingMultipartFormData.makeBoundary()) {
        self.request = request
        self.boundary = boundary
    }

    /// A random boundary, `Boundary+` and two random 32-bit numbers in upper-case hex (AF's format).
    public static func makeBoundary() -> String {
        String(format: "Boundary+%08X%08X", UInt32.random(in: .min ... .max), UInt32.random(in: .min ... .max))
    }

    // MARK: Appending parts

    /// Appends a file part named `name`: filename = the URL's last path component, MIME type from its
    /// extension (``MIMEType/forPathExtension(_:)``). The file is read while uploading, never whole.
    /// - Throws: ``MultipartFormDataError`` as ``appendPart(withFileURL:name:fileName:mimeType:)``.
    public func appendPart(withFileURL fileURL: URL, name: String) throws {
        try appendPart(withFileURL: fileURL, name: name, fileName: fileURL.lastPathComponent,
                       mimeType: MIMEType.forPathExtension(fileURL.pathExtension))
    }

    /// Appends a file part with an explicit file name and MIME type. The file's size is taken now (it
    /// fixes `Content-Length`); its bytes are read while uploading.
    /// - Throws: ``MultipartFormDataError/notAFileURL(_:)`` (-1000, "Expected URL to be a file URL"),
    ///   ``MultipartFormDataError/fileNotReachable(_:)`` (-1000, "File URL not reachable."),
    ///   ``MultipartFormDataError/fileUnreadable(_:errno:)`` for a file that cannot be opened or is not a
    ///   regular file.
    public func appendPart(withFileURL fileURL: URL, name: String, fileName: String, mimeType: String) throws {
        guard fileURL.isFileURL else { throw MultipartFormDataError.notAFileURL(fileURL) }
        let path = fileURL.path
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw MultipartFormDataError.fileNotReachable(fileURL) }
            throw MultipartFormDataError.fileUnreadable(fileURL, errno: code)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw MultipartFormDataError.fileUnreadable(fileURL, errno: EISDIR) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MultipartFormDataError.fileUnreadable(fileURL, errno: errno) }
        close(descriptor)
        append(name: name, headers: fileHeaders(name: name, fileName: fileName, mimeType: mimeType),
               body: .file(fileURL, length: Int64(info.st_size)))
    }

    /// Appends a part whose bytes come from `makeStream` (called once per pass, so the body can restart),
    /// exactly `length` bytes long: a longer stream is cut at `length`, a shorter one fails the read with
    /// ``MultipartFormDataError/streamShorterThanDeclared(name:declared:actual:)``.
    public func appendPart(withInputStream makeStream: @escaping @Sendable () throws -> InputStream,
                           name: String, fileName: String, length: Int64, mimeType: String) {
        append(name: name, headers: fileHeaders(name: name, fileName: fileName, mimeType: mimeType),
               body: .stream(makeStream, length: max(0, length)))
    }

    /// Appends in-memory data as a file part.
    public func appendPart(withFileData data: Data, name: String, fileName: String, mimeType: String) {
        append(name: name, headers: fileHeaders(name: name, fileName: fileName, mimeType: mimeType), body: .data(data))
    }

    /// Appends a plain form field: `Content-Disposition: form-data; name="N"` and the data.
    public func appendPart(withFormData data: Data, name: String) {
        let headers = [(name: "Content-Disposition", value: MultipartBodyPart.contentDisposition(name: name))]
        parts.append(MultipartBodyPart(name: name, headers: headers, body: .data(data)))
    }

    /// Appends a part with exactly the given headers, in order, and body. A header whose name is not an
    /// RFC 9110 token or whose value holds CR, LF or NUL refuses the part (``refusal``).
    public func appendPart(withHeaders headers: [(name: String, value: String)], body: Data) {
        append(name: headers.first?.value ?? "", headers: headers, body: .data(body))
    }

    /// Paces the body: after every `packetSize` bytes (at least 1) the reader answers
    /// `BodyReadResult.wait(delay)` so the engine pauses the transfer; no thread sleeps.
    public func throttleBandwidth(packetSize: Int, delay: Duration) {
        throttle = BandwidthThrottle(packetSize: max(1, packetSize), delay: delay)
    }

    /// Appends the part unless one of its headers would forge a line (then records the first refusal).
    /// Names and file names are percent-encoded into the disposition and cannot; MIME types and
    /// caller-given headers are checked here, with the rule every module shares (HTTPFieldSyntax).
    private func append(name: String, headers: [(name: String, value: String)], body: MultipartBodyPart.Body) {
        if let invalid = headers.first(where: { !HTTPFieldSyntax.isToken($0.name) || !HTTPFieldSyntax.isFieldValue($0.value) }) {
            if refusal == nil { refusal = .invalidPartHeader(part: name, field: invalid.name) }
            return
        }
        parts.append(MultipartBodyPart(name: name, headers: headers, body: body))
    }

    private func fileHeaders(name: String, fileName: String, mimeType: String) -> [(name: String, value: String)] {
        [(name: "Content-Disposition", value: MultipartBodyPart.contentDisposition(name: name, fileName: fileName)),
         (name: "Content-Type", value: mimeType)]
    }

    // MARK: Finishing

    /// The number of parts appended so far.
    public var partCount: Int { parts.count }

    /// The body as it stands: a restartable source over the parts appended so far.
    public var bodySource: MultipartBodySource {
        MultipartBodySource(boundary: boundary, parts: parts, throttle: throttle, refusal: refusal)
    }

    /// The request with `Content-Type: multipart/form-data; boundary=B`, the exact `Content-Length`, no
    /// `httpBody`, and ``bodySource`` as its streamed body. Without parts the request is returned
    /// unchanged, with its own `httpBody` (or nothing) as the body.
    public func requestByFinalizingMultipartFormData() -> StreamedRequest {
        guard !parts.isEmpty else {
            return StreamedRequest(request: request, body: DataBodySource(request.httpBody ?? Data()))
        }
        let source = bodySource
        var finalized = request
        finalized.httpBody = nil
        finalized.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        finalized.setValue(String(source.contentLength ?? 0), forHTTPHeaderField: "Content-Length")
        return StreamedRequest(request: finalized, body: source)
    }
}
