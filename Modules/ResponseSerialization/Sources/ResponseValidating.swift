import AFProtocols
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

    /// Validates and reports whether a parser should still run, as AFNetworking's decoding serializers
    /// do: a failed status still decodes the body (the object travels with the error), an unacceptable
    /// content type does not.
    func validationBeforeDecoding(_ response: URLResponse?, data: Data?) -> (shouldDecode: Bool, error: NSError?) {
        let result = validation.validate(response, data: data)
        guard !result.isValid, let error = result.error else { return (true, result.error) }
        let contentTypeFailed = error.underlyingErrorChain.contains {
            $0.domain == URLResponseSerializationErrorDomain && $0.code == URLError.cannotDecodeContentData.rawValue
        }
        return (!contentTypeFailed, error)
    }
}
