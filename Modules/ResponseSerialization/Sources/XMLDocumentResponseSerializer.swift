import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and parses its body into an ``XMLTreeDocument`` (AFXMLDocumentResponseSerializer,
/// which returned an `NSXMLDocument`).
///
/// Defaults: status codes 200..<300; content types `application/xml`, `text/xml`; safe
/// ``XMLParsingOptions``. An unacceptable content type returns no document; a failed status still parses
/// (the document travels with the validation error). A body that does not parse (including an empty one)
/// gives a `URLResponseSerializationErrorDomain` error, code -1016, whose
/// ``ResponseSerializationParserErrorKey`` holds the ``XMLParsingError`` (line and column) and whose
/// underlying error is the validation error, if any.
///
/// Threading: a value type; safe to share and to call from many threads at once.
public struct XMLDocumentResponseSerializer: ResponseValidating, Hashable, Codable {
    public var validation: HTTPResponseValidation
    /// The parsing options (AFNetworking's `options`).
    public var options: XMLParsingOptions

    /// Creates a serializer with AFNetworking's defaults.
    public init(options: XMLParsingOptions = XMLParsingOptions()) {
        self.validation = HTTPResponseValidation(acceptableContentTypes: XMLParserResponseSerializer.defaultAcceptableContentTypes)
        self.options = options
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let validated = validationBeforeDecoding(response, data: data)
        guard validated.shouldDecode else { return SerializedResponse(error: validated.error) }
        do {
            let document = try XMLTreeDocument(data: data ?? Data(), options: options)
            return SerializedResponse(object: document, error: validated.error)
        } catch {
            return SerializedResponse(error: ResponseDecodingError.make(
                format: "XML", parserError: error, parserMessage: "\(error)",
                validationError: validated.error, response: response, data: data))
        }
    }
}

extension XMLDocumentResponseSerializer: ArchivableResponseSerializer {
    /// `"xmlDocument"` in archives (`ResponseSerializerArchive`).
    public static var archiveName: String { "xmlDocument" }
}
