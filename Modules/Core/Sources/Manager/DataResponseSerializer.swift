import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The response serializer a ``URLSessionManager`` uses until one is set: AFHTTPResponseSerializer's
/// behaviour (validate the status code, 200–299 by default, and optionally the content type; the object
/// is the body `Data`). The umbrella module replaces it with JSONResponseSerializer, as AFNetworking does.
public struct DataResponseSerializer: ResponseSerializing {
    /// The validation rule (AFNetworking's shared one).
    public var validation: HTTPResponseValidation

    /// Creates a serializer validating with `validation` (default: status 200–299, any content type).
    public init(validation: HTTPResponseValidation = HTTPResponseValidation()) {
        self.validation = validation
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let result = validation.validate(response, data: data)
        return SerializedResponse(object: data, error: result.isValid ? nil : result.error)
    }
}
