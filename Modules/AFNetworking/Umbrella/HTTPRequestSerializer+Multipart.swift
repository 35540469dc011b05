import AFMultipart
import AFProtocols
import AFRequestSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Composition point of the two feature modules: AFRequestSerialization cannot import AFMultipart (the
// dependency rule), so AFHTTPRequestSerializer's multipart methods are put together here.
extension HTTPRequestSerializer {
    /// Builds a multipart/form-data request (AF's `multipartFormRequestWithMethod:URLString:parameters:
    /// constructingBodyWithBlock:error:`): the request is built like
    /// `HTTPRequestSerializer/request(method:urlString:parameters:)` with no parameters (default
    /// headers and mirrored properties apply), then `parameters` become the first form fields and
    /// `construct` appends the rest.
    ///
    /// - Parameters:
    ///   - method: any method with a body; `GET` and `HEAD` throw.
    ///   - urlString: the absolute URL of the request.
    ///   - parameters: form fields written before the parts `construct` appends (nil: none).
    ///   - construct: appends the parts (files, data, streams) to the form.
    ///   - builder: the multipart builder; a `MultipartFormRequestBuilder` with random boundaries by default.
    /// - Returns: the request (`Content-Type: multipart/form-data; boundary=...`, exact `Content-Length`)
    ///   and its streaming body.
    /// - Throws: `MultipartFormDataError/methodNotAllowed(_:)` for `GET`/`HEAD`, `URLError(.badURL)`,
    ///   or what `construct` throws.
    public func multipartFormRequest(
        method: String,
        urlString: String,
        parameters: ParameterValue?,
        builder: any MultipartFormRequestBuilding = MultipartFormRequestBuilder(),
        constructingBodyWith construct: (any MultipartFormData) throws -> Void
    ) throws -> StreamedRequest {
        let upper = method.uppercased()
        guard upper != "GET", upper != "HEAD" else { throw MultipartFormDataError.methodNotAllowed(upper) }
        let request = try request(method: method, urlString: urlString, parameters: nil)
        return try builder.multipartFormRequest(from: request, parameters: parameters, constructingBodyWith: construct)
    }

    /// Writes the body of `streamedRequest` to `fileURL` and returns the request without a body, for an
    /// upload-from-file task. The copy runs off the cooperative pool.
    /// - Throws: `MultipartFormDataError/cannotWriteFile(_:errno:created:)` or the body's read errors.
    public func request(withMultipartFormRequest streamedRequest: StreamedRequest,
                        writingStreamContentsToFile fileURL: URL) async throws -> URLRequest {
        try await MultipartFormRequestBuilder().request(withMultipartFormRequest: streamedRequest,
                                                        writingStreamContentsToFile: fileURL)
    }

    /// The completion-handler form: returns the body-less request at once; `completionHandler` runs on a
    /// global dispatch queue with `nil` or the error once the file is written.
    @discardableResult
    public func request(withMultipartFormRequest streamedRequest: StreamedRequest,
                        writingStreamContentsToFile fileURL: URL,
                        completionHandler: @escaping @Sendable ((any Error)?) -> Void) -> URLRequest {
        MultipartFormRequestBuilder().request(withMultipartFormRequest: streamedRequest,
                                              writingStreamContentsToFile: fileURL,
                                              completionHandler: completionHandler)
    }
}
