import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and returns its body unchanged (AFHTTPResponseSerializer): the default of every
/// manager in AFCore, and the base rule of AFResponseSerialization's decoding serializers.
///
/// Defaults: status codes 200..<300, any content type. The result's object is the body `Data` (or
/// `nil` when there was none); its error is the validation error, if any.
///
/// Threading: a value type; safe to share and to call from many threads at once.
public struct HTTPResponseSerializer: ResponseValidating, Hashable, Codable {
    public var validation: HTTPResponseValidation

    /// Creates a serializer with AFNetworking's defaults (2xx, any content type).
    public init(validation: HTTPResponseValidation = HTTPResponseValidation()) {
        self.validation = validation
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let result = validation.validate(response, data: data)
        return SerializedResponse(object: data, error: result.error)
    }
}

extension HTTPResponseSerializer: ArchivableResponseSerializer {
    /// `"http"` in archives (``ResponseSerializerArchive``).
    public static var archiveName: String { "http" }
}
