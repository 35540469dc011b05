import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tries several serializers in order (AFCompoundResponseSerializer).
///
/// The first component that returns an object wins, with that component's error (a JSON body of a 404
/// comes back with the status error). When none produces an object, the result is the base validation (2xx, any content type)
/// with the raw data, as `HTTPResponseSerializer` returns it.
///
/// Archivable (`Codable`) when every component is an `ArchivableResponseSerializer`, as every shipped
/// serializer is, the image serializer of AFImageLoading included (see `ResponseSerializerArchive`).
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

extension CompoundResponseSerializer: ArchivableResponseSerializer {
    /// `"compound"` in archives (`ResponseSerializerArchive`).
    public static var archiveName: String { "compound" }

    /// This module's serializers, allowed in archives before any was encoded in this process.
    private static let registerThisModule: Void = {
        let types: [any ArchivableResponseSerializer.Type] = [
            HTTPResponseSerializer.self, JSONResponseSerializer.self, XMLParserResponseSerializer.self,
            XMLDocumentResponseSerializer.self, PropertyListResponseSerializer.self, CompoundResponseSerializer.self,
        ]
        types.forEach(ResponseSerializerArchive.register)
    }()

    private enum CodingKeys: String, CodingKey {
        case validation, responseSerializers
    }

    /// Decodes the validation and the components, each of a type registered with
    /// `ResponseSerializerArchive` (this module's are; AFImageLoading registers its own).
    /// - Throws: `DecodingError` for a component whose type is not registered.
    public init(from decoder: any Decoder) throws {
        _ = Self.registerThisModule
        let container = try decoder.container(keyedBy: CodingKeys.self)
        validation = try container.decode(HTTPResponseValidation.self, forKey: .validation)
        responseSerializers = try container.decode([ArchivedResponseSerializer].self, forKey: .responseSerializers)
            .map(\.serializer)
    }

    /// Encodes the validation and the components.
    /// - Throws: `EncodingError.invalidValue` when a component is not an `ArchivableResponseSerializer`
    ///   (every shipped serializer is).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(validation, forKey: .validation)
        try container.encode(try responseSerializers.map(ArchivedResponseSerializer.init), forKey: .responseSerializers)
    }
}
