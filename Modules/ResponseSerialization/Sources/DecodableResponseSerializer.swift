import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and decodes its JSON body into `Value` with `JSONDecoder`: the typed
/// counterpart of ``JSONResponseSerializer`` for Swift code.
///
/// Defaults: status codes 200..<300; the JSON content types. An empty body or a single space returns no
/// object. As with JSON, a failed status still decodes the body; a `DecodingError` gives a
/// `URLResponseSerializationErrorDomain` error, code -1016, with the `DecodingError` under
/// ``ResponseSerializationParserErrorKey`` and the validation error (if any) as underlying error.
///
/// Threading: safe to share; each call uses a fresh `JSONDecoder` configured by ``makeDecoder``.
public struct DecodableResponseSerializer<Value: Decodable & Sendable>: ResponseValidating {
    public var validation: HTTPResponseValidation
    /// Creates the decoder for each response (set key or date strategies here). Default: `JSONDecoder()`.
    public var makeDecoder: @Sendable () -> JSONDecoder

    /// Creates a serializer decoding `Value`.
    public init(_ type: Value.Type = Value.self, makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }) {
        self.validation = HTTPResponseValidation(acceptableContentTypes: JSONResponseSerializer.defaultAcceptableContentTypes)
        self.makeDecoder = makeDecoder
    }

    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let validated = validationBeforeDecoding(response, data: data)
        guard validated.shouldDecode else { return SerializedResponse(error: validated.error) }
        guard let data, !data.isEmpty, data != Data([0x20]) else { return SerializedResponse(error: validated.error) }
        do {
            return SerializedResponse(object: try makeDecoder().decode(Value.self, from: data), error: validated.error)
        } catch {
            return SerializedResponse(error: ResponseDecodingError.make(
                format: "JSON for \(Value.self)", parserError: error, parserMessage: "\(error)",
                validationError: validated.error, response: response, data: data))
        }
    }

    /// The decoded value, or the error (validation or decoding) thrown.
    public func decode(_ response: URLResponse?, data: Data?) throws -> Value? {
        let result = responseObject(for: response, data: data)
        if let error = result.error { throw error }
        return result.object as? Value
    }
}
