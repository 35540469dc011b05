import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response serializer that validates with AFNetworking's rule (``HTTPResponseValidation``) before
/// decoding. Gives every serializer AFNetworking's `acceptableStatusCodes`, `acceptableContentTypes`
/// and `validateResponse(_:data:)`.
public protocol ResponseValidating: ResponseSerializing {
    /// The status-code and content-type rule this serializer applies.
    var validation: HTTPResponseValidation { get set }
}

extension ResponseValidating {
    /// Acceptable status codes; `nil` accepts any. Default 200..<300.
    public var acceptableStatusCodes: IndexSet? {
        get { validation.acceptableStatusCodes }
        set { validation.acceptableStatusCodes = newValue }
    }

    /// Acceptable MIME types; `nil` accepts any. Each serializer documents its default.
    public var acceptableContentTypes: Set<String>? {
        get { validation.acceptableContentTypes }
        set { validation.acceptableContentTypes = newValue }
    }

    /// Validates `response` and `data` (AFNetworking's `validateResponse:data:error:`). Only
    /// `HTTPURLResponse`s are checked. See ``HTTPResponseValidation`` for the exact errors.
    public func validateResponse(_ response: URLResponse?, data: Data?) -> ResponseValidationResult {
        validation.validate(response, data: data)
    }
}
