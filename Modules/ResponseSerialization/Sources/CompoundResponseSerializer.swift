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
/// Codable when every component is one of this module's serializers (see ``encode(to:)``).
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

extension CompoundResponseSerializer: Codable {
    /// The component types that can be archived, tagged by kind.
    private enum ArchivedComponent: Codable {
        case http(HTTPResponseSerializer)
        case json(JSONResponseSerializer)
        case xmlParser(XMLParserResponseSerializer)
        case xmlDocument(XMLDocumentResponseSerializer)
        case propertyList(PropertyListResponseSerializer)
        case compound(CompoundResponseSerializer)

        init(_ serializer: any ResponseSerializing) throws {
            switch serializer {
            case let serializer as HTTPResponseSerializer: self = .http(serializer)
            case let serializer as JSONResponseSerializer: self = .json(serializer)
            case let serializer as XMLParserResponseSerializer: self = .xmlParser(serializer)
            case let serializer as XMLDocumentResponseSerializer: self = .xmlDocument(serializer)
            case let serializer as PropertyListResponseSerializer: self = .propertyList(serializer)
            case let serializer as CompoundResponseSerializer: self = .compound(serializer)
            default:
                throw EncodingError.invalidValue(serializer, EncodingError.Context(
                    codingPath: [], debugDescription: "\(type(of: serializer)) is not one of AFResponseSerialization's serializers"))
            }
        }

        var serializer: any ResponseSerializing {
            switch self {
            case .http(let serializer): return serializer
            case .json(let serializer): return serializer
            case .xmlParser(let serializer): return serializer
            case .xmlDocument(let serializer): return serializer
            case .propertyList(let serializer): return serializer
            case .compound(let serializer): return serializer
            }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case validation, responseSerializers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        validation = try container.decode(HTTPResponseValidation.self, forKey: .validation)
        responseSerializers = try container.decode([ArchivedComponent].self, forKey: .responseSerializers).map(\.serializer)
    }

    /// Encodes the validation and the components.
    /// - Throws: `EncodingError.invalidValue` when a component is not one of this module's serializers
    ///   (HTTP, JSON, XML parser, XML document, property list, compound).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(validation, forKey: .validation)
        try container.encode(try responseSerializers.map(ArchivedComponent.init), forKey: .responseSerializers)
    }
}
