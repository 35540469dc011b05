import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds multipart/form-data requests (the multipart half of AFHTTPRequestSerializer's
/// `multipartFormRequestWithMethod:...`): what a session manager is given to do multipart POSTs.
///
/// Threading: a value; call it from any thread. The construction closure runs synchronously on the
/// caller's thread.
public struct MultipartFormRequestBuilder: MultipartFormRequestBuilding {
    private let makeBoundary: @Sendable () -> String

    /// Creates a builder.
    /// - Parameter makeBoundary: the boundary of each new form; random `Boundary+%08X%08X` by default.
    public init(makeBoundary: @escaping @Sendable () -> String = { StreamingMultipartFormData.makeBoundary() }) {
        self.makeBoundary = makeBoundary
    }

    /// Appends `parameters` as form fields first (flattened with the query-string pair rules; values as
    /// printed by `ParameterValue/scalarDescription`, null as an empty field), then lets `construct`
    /// append parts, and finalizes the request (``StreamingMultipartFormData/requestByFinalizingMultipartFormData()``).
    ///
    /// - Throws: ``MultipartFormDataError/methodNotAllowed(_:)`` for `GET` and `HEAD`;
    ///   ``MultipartFormDataError/invalidPartHeader(part:field:)`` when a part's MIME type or headers would
    ///   forge a header line; whatever `construct` throws.
    public func multipartFormRequest(
        from request: URLRequest,
        parameters: ParameterValue?,
        constructingBodyWith construct: (any MultipartFormData) throws -> Void
    ) throws -> StreamedRequest {
        let method = (request.httpMethod ?? "GET").uppercased()
        guard method != "GET", method != "HEAD" else { throw MultipartFormDataError.methodNotAllowed(method) }
        let form = StreamingMultipartFormData(request: request, boundary: makeBoundary())
        for pair in parameters?.flattenedPairs() ?? [] {
            form.appendPart(withFormData: Data((pair.value.scalarDescription ?? "").utf8), name: pair.field)
        }
        try construct(form)
        if let refusal = form.refusal { throw refusal }
        return form.requestByFinalizingMultipartFormData()
    }
}
