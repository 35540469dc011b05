import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tries several serializers in order (AFCompoundResponseSerializer).
///
/// The first component that returns an object wins, with that component's error (a JSON body of a 404
/// comes back with the status error). When none produces an object, the result is the base validation (2xx, any content type)
/// with the raw data, as ``HTTPResponseSerializer`` returns it.
///
/// Threading: a value type over Sendable components; safe to share and to call from many threads.
public struct CompoundResponseSerializer: ResponseValidating {
    public var validation: HTTPResponseValidation
    /// The components, tried in order.
    public var responseSerializers: [any ResponseSerializing]

    /// Creates a compound serializer over `responseSerializers`.
    public init(responseSerializers: [any ResponseSerializing], validation: HTTPResponseValidation = HTTPResponseValidation()) {
        self.responseSerializers = responseSerializers
        self.validation = validation
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        for serializer in responseSerializers {
            let result = serializer.responseObject(for: response, data: data)
            if result.object != nil { return result }
        }
        return SerializedResponse(object: data, error: validation.validate(response, data: data).error)
    }
}
