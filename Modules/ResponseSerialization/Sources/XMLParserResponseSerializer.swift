import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and returns an unparsed streaming parser over its body, an ``XMLStreamParser``
/// (AFXMLParserResponseSerializer, which returned an unstarted `NSXMLParser`).
///
/// Defaults: status codes 200..<300; content types `application/xml`, `text/xml`; safe
/// ``XMLParsingOptions``. An unacceptable content type returns no parser; a failed status returns the
/// parser with the validation error. Parse errors surface when the caller runs
/// ``XMLStreamParser/parse(delegate:)``.
///
/// Threading: a value type; safe to share and to call from many threads at once.
public struct XMLParserResponseSerializer: ResponseValidating, Hashable, Codable {
    public var validation: HTTPResponseValidation
    /// The options the returned parser uses.
    public var options: XMLParsingOptions

    /// The content types AFNetworking's XML serializers accept.
    public static let defaultAcceptableContentTypes: Set<String> = ["application/xml", "text/xml"]

    /// Creates a serializer with AFNetworking's defaults.
    public init(options: XMLParsingOptions = XMLParsingOptions()) {
        self.validation = HTTPResponseValidation(acceptableContentTypes: Self.defaultAcceptableContentTypes)
        self.options = options
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let validated = validationBeforeDecoding(response, data: data)
        guard validated.shouldDecode, let data else { return SerializedResponse(error: validated.error) }
        return SerializedResponse(object: XMLStreamParser(data: data, options: options), error: validated.error)
    }
}

extension XMLParserResponseSerializer: ArchivableResponseSerializer {
    /// `"xmlParser"` in archives (`ResponseSerializerArchive`).
    public static var archiveName: String { "xmlParser" }
}
