import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and decodes its property-list body into a `ParameterValue`
/// (AFPropertyListResponseSerializer).
///
/// Defaults: status codes 200..<300; content type `application/x-plist`; format XML; no read options.
/// No body (a 204) returns no object and no error. `ParameterValue` has no date or data case, so a
/// `<date>` becomes its ISO 8601 string and `<data>` its Base64 string. A body that is not a property
/// list gives a `URLResponseSerializationErrorDomain` error, code -1016, with the validation error
/// (if any) as its underlying error.
///
/// Threading: a value type; safe to share and to call from many threads at once.
public struct PropertyListResponseSerializer: ResponseValidating, Equatable {
    public var validation: HTTPResponseValidation
    /// The format AFNetworking records for the serializer (reading detects the actual format). Default XML.
    public var format: PropertyListSerialization.PropertyListFormat
    /// `PropertyListSerialization` read options. Default none.
    public var readOptions: PropertyListSerialization.ReadOptions

    /// Creates a serializer with AFNetworking's defaults.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml,
                readOptions: PropertyListSerialization.ReadOptions = []) {
        self.validation = HTTPResponseValidation(acceptableContentTypes: ["application/x-plist"])
        self.format = format
        self.readOptions = readOptions
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let validated = validationBeforeDecoding(response, data: data)
        guard validated.shouldDecode, let data else { return SerializedResponse(error: validated.error) }
        do {
            let object = try PropertyListSerialization.propertyList(from: data, options: readOptions, format: nil)
            return SerializedResponse(object: try Self.parameterValue(object), error: validated.error)
        } catch {
            let message = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            return SerializedResponse(error: ResponseDecodingError.make(
                format: "property list", parserError: error, parserMessage: message,
                validationError: validated.error, response: response, data: data))
        }
    }

    /// Converts a property-list object tree, mapping the two types `ParameterValue` lacks to strings.
    static func parameterValue(_ object: Any) throws -> ParameterValue {
        switch object {
        case let date as Date:
            return .string(date.formatted(.iso8601))
        case let data as Data:
            return .string(data.base64EncodedString())
        case let dictionary as [String: Any]:
            return .dictionary(try dictionary.mapValues { try parameterValue($0) })
        case let array as [Any]:
            return .array(try array.map { try parameterValue($0) })
        default:
            return try ParameterValue(foundationObject: object)
        }
    }
}

extension PropertyListResponseSerializer: Codable {
    private enum CodingKeys: String, CodingKey {
        case validation, format, readOptions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        validation = try container.decode(HTTPResponseValidation.self, forKey: .validation)
        let formatValue = try container.decode(UInt.self, forKey: .format)
        guard let format = PropertyListSerialization.PropertyListFormat(rawValue: formatValue) else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container,
                                                   debugDescription: "Unknown property list format \(formatValue)")
        }
        self.format = format
        readOptions = PropertyListSerialization.ReadOptions(rawValue: try container.decode(UInt.self, forKey: .readOptions))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(validation, forKey: .validation)
        try container.encode(format.rawValue, forKey: .format)
        try container.encode(readOptions.rawValue, forKey: .readOptions)
    }
}

extension PropertyListResponseSerializer: ArchivableResponseSerializer {
    /// `"propertyList"` in archives (`ResponseSerializerArchive`).
    public static var archiveName: String { "propertyList" }
}
