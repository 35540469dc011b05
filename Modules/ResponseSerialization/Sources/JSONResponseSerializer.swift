import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and decodes its JSON body into a `ParameterValue` (AFJSONResponseSerializer).
///
/// Defaults: status codes 200..<300; content types `application/json`, `text/json`, `text/javascript`;
/// no reading options; nulls kept.
/// - An unacceptable content type returns no object (the body is not parsed).
/// - An empty body or a single space (HEAD, 204, Rails' `head :ok`) returns no object and no parse error.
/// - A failed status still parses the body: the object comes back together with the validation error.
/// - A body that is not JSON gives a `URLResponseSerializationErrorDomain` error, code -1016, with the
///   validation error (if any) as its underlying error and the parser's error (a ``JSONParsingError``
///   with line and column) under ``ResponseSerializationParserErrorKey``.
///
/// Threading: a value type; safe to share and to call from many threads at once.
public struct JSONResponseSerializer: ResponseValidating, Equatable {
    public var validation: HTTPResponseValidation
    /// `JSONSerialization` reading options; `.fragmentsAllowed` accepts a top-level scalar. Default none.
    /// The container-mutability options have no meaning for `ParameterValue` and are ignored.
    public var readingOptions: JSONSerialization.ReadingOptions
    /// Whether to remove `null` values from dictionaries (recursively) and `null` elements from arrays.
    /// Default `false`.
    public var removesKeysWithNullValues: Bool

    /// The content types AFNetworking's JSON serializer accepts.
    public static let defaultAcceptableContentTypes: Set<String> = ["application/json", "text/json", "text/javascript"]

    /// Creates a serializer with AFNetworking's defaults.
    public init(readingOptions: JSONSerialization.ReadingOptions = [], removesKeysWithNullValues: Bool = false) {
        self.validation = HTTPResponseValidation(acceptableContentTypes: Self.defaultAcceptableContentTypes)
        self.readingOptions = readingOptions
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let validated = validationBeforeDecoding(response, data: data)
        guard validated.shouldDecode else { return SerializedResponse(error: validated.error) }
        guard let data, !data.isEmpty, data != Self.singleSpace else { return SerializedResponse(error: validated.error) }
        do {
            let value = try Self.decode(data, options: readingOptions, removingNulls: removesKeysWithNullValues)
            return SerializedResponse(object: value, error: validated.error)
        } catch {
            let message = (error as? JSONParsingError)?.description
                ?? (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            return SerializedResponse(error: ResponseDecodingError.make(
                format: "JSON", parserError: error, parserMessage: message,
                validationError: validated.error, response: response, data: data))
        }
    }

    /// Decodes JSON text into a ``ParameterValue`` with this module's parser, which measured several
    /// times faster than both `JSONSerialization` + `ParameterValue(foundationObject:)` and `JSONDecoder`
    /// into `ParameterValue` (Bench/Sources/JSONResponse). UTF-16 and UTF-32 text is transcoded to UTF-8
    /// first, never handed to `JSONSerialization`, whose grammar is laxer (trailing commas).
    /// `removingNulls` applies ``removesKeysWithNullValues`` while parsing.
    static func decode(_ data: Data, options: JSONSerialization.ReadingOptions, removingNulls: Bool = false) throws -> ParameterValue {
        try JSONValueParser.parse(data, allowsFragments: options.contains(.fragmentsAllowed), dropsNulls: removingNulls)
    }

    private static let singleSpace = Data([0x20])
}

extension JSONResponseSerializer: Codable {
    private enum CodingKeys: String, CodingKey {
        case validation, readingOptions, removesKeysWithNullValues
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        validation = try container.decode(HTTPResponseValidation.self, forKey: .validation)
        readingOptions = JSONSerialization.ReadingOptions(rawValue: try container.decode(UInt.self, forKey: .readingOptions))
        removesKeysWithNullValues = try container.decode(Bool.self, forKey: .removesKeysWithNullValues)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(validation, forKey: .validation)
        try container.encode(readingOptions.rawValue, forKey: .readingOptions)
        try container.encode(removesKeysWithNullValues, forKey: .removesKeysWithNullValues)
    }
}

extension ParameterValue {
    /// This value with `null` dictionary values removed recursively and `null` array elements dropped
    /// (AFNetworking 4's `AFJSONObjectByRemovingKeysWithNullValues`).
    func removingNullValues() -> ParameterValue {
        switch self {
        case .dictionary(let dictionary):
            var kept: [String: ParameterValue] = [:]
            kept.reserveCapacity(dictionary.count)
            for (key, value) in dictionary where !value.isNull { kept[key] = value.removingNullValues() }
            return .dictionary(kept)
        case .array(let array):
            // filter + map, not compactMap: `nil` would be the `.null` literal here, not Optional.none.
            return .array(array.filter { !$0.isNull }.map { $0.removingNullValues() })
        case .set(let set):
            return .set(Set(set.filter { !$0.isNull }.map { $0.removingNullValues() }))
        case .string, .int, .double, .bool, .null:
            return self
        }
    }
}

extension JSONResponseSerializer: ArchivableResponseSerializer {
    /// `"json"` in archives (`ResponseSerializerArchive`).
    public static var archiveName: String { "json" }
}
