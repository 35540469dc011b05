import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a response serializer produced: an object, an error, or, as AFNetworking allows, both (a JSON
/// body parsed from a 404 comes back with the status error).
public struct SerializedResponse: Sendable {
    /// The decoded object (`ParameterValue` for JSON, `Data` for the base serializer, a document, an
    /// image...), or `nil`.
    public var object: (any Sendable)?
    /// The validation or parsing error, or `nil`.
    public var error: (any Error)?

    /// Creates a result.
    public init(object: (any Sendable)? = nil, error: (any Error)? = nil) {
        self.object = object
        self.error = error
    }
}

/// Validates and decodes a response body (AFURLResponseSerialization).
///
/// Implementations: HTTPResponseSerializer, JSONResponseSerializer, the XML, property-list and
/// compound serializers in AFResponseSerialization; ImageResponseSerializer in AFImageLoading.
///
/// Threading: called on the session's concurrent processing queue, from many threads at once.
public protocol ResponseSerializing: Sendable {
    /// Validates `response` and decodes `data` with AFNetworking's rules for this serializer.
    /// Never throws: failures are the result's `error`, so an object can travel with its error.
    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse
}

extension ResponseSerializing {
    /// The decoded object, throwing the result's error if there is one.
    public func decodedObject(for response: URLResponse?, data: Data?) throws -> (any Sendable)? {
        let result = responseObject(for: response, data: data)
        if let error = result.error { throw error }
        return result.object
    }
}
