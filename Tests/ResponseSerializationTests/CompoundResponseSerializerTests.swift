import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFResponseSerialization

/// AFCompoundResponseSerializerTests (the image serializer lives in AFImageLoading; a PNG-only
/// serializer built on the shared validation stands in for it) and the DecodableResponseSerializer.
@Suite struct CompoundResponseSerializerTests {
    /// Accepts image/png only; like AF's image serializer it returns no object for another content type.
    struct PNGOnlySerializer: ResponseValidating {
        var validation = HTTPResponseValidation(acceptableContentTypes: ["image/png"])
        func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
            let result = validation.validate(response, data: data)
            return SerializedResponse(object: result.isValid ? data : nil, error: result.error)
        }
    }

    let compound = CompoundResponseSerializer(responseSerializers: [PNGOnlySerializer(), JSONResponseSerializer()])

    @Test func properlySerializesResponse() {
        let response = httpResponse(contentType: "application/json", url: URL(string: "http://test.com")!)
        let result = compound.responseObject(for: response, data: utf8(#"{"key":"value"}"#))
        #expect(result.object as? ParameterValue == ["key": "value"])
        #expect(result.error == nil)
    }

    @Test func canBeCopied() {
        var original = compound
        let copy = original
        original.responseSerializers.removeAll()
        #expect(copy.responseSerializers.count == 2)
        #expect(copy.responseSerializers[0] is PNGOnlySerializer)
        #expect(copy.responseSerializers[1] is JSONResponseSerializer)
    }

    @Test func canBeArchivedAndUnarchived() throws {
        var json = JSONResponseSerializer()
        json.removesKeysWithNullValues = true
        let archivable = CompoundResponseSerializer(responseSerializers: [XMLDocumentResponseSerializer(), json])
        let decoded = try JSONDecoder().decode(CompoundResponseSerializer.self, from: JSONEncoder().encode(archivable))
        #expect(decoded.responseSerializers.count == 2)
        #expect(decoded.responseSerializers[0] as? XMLDocumentResponseSerializer == XMLDocumentResponseSerializer())
        #expect(decoded.responseSerializers[1] as? JSONResponseSerializer == json)
        #expect(decoded.validation == archivable.validation)
        // A component that is not an ArchivableResponseSerializer cannot be archived.
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(compound) }
    }

    @Test func anArchiveNamingAnUnregisteredTypeIsRefused() throws {
        let archive = Data(#"""
            {"validation":\#(String(decoding: try JSONEncoder().encode(HTTPResponseValidation()), as: UTF8.self)),
             "responseSerializers":[{"type":"json","value":\#(String(decoding: try JSONEncoder().encode(JSONResponseSerializer()), as: UTF8.self))},
                                    {"type":"Foundation.Process","value":{}}]}
            """#.utf8)
        let error = try #require(throws: DecodingError.self) {
            try JSONDecoder().decode(CompoundResponseSerializer.self, from: archive)
        }
        guard case .dataCorrupted(let context) = error else { Issue.record("unexpected \(error)"); return }
        #expect(context.debugDescription
            == "No archivable response serializer is registered as \"Foundation.Process\" (ResponseSerializerArchive.register)")
    }

    @Test func keepsTheWinningComponentsError() throws {
        let result = compound.responseObject(for: httpResponse(status: 404, contentType: "application/json"),
                                             data: utf8(#"{"error":"missing"}"#))
        #expect(result.object as? ParameterValue == ["error": "missing"])
        #expect((result.error as NSError?)?.localizedDescription == "Request failed: not found (404)")
    }

    @Test func fallsBackToValidationAndRawData() throws {
        let data = utf8("plain")
        let result = compound.responseObject(for: httpResponse(status: 404, contentType: "text/plain"), data: data)
        #expect(result.object as? Data == data)
        #expect((result.error as NSError?)?.code == -1011)
    }
}

@Suite struct DecodableResponseSerializerTests {
    struct User: Decodable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test func decodesTheValue() throws {
        let serializer = DecodableResponseSerializer(User.self)
        let user = try serializer.decode(httpResponse(contentType: "application/json"), data: utf8(#"{"id":7,"name":"Ada"}"#))
        #expect(user == User(id: 7, name: "Ada"))
        #expect(try serializer.decode(httpResponse(contentType: "application/json"), data: utf8(" ")) == nil)
    }

    @Test func reportsADecodingError() throws {
        let serializer = DecodableResponseSerializer(User.self)
        let result = serializer.responseObject(for: httpResponse(contentType: "application/json"), data: utf8(#"{"id":"x"}"#))
        let error = try #require(result.error as NSError?)
        #expect(error.code == -1016)
        #expect(error.userInfo[ResponseSerializationParserErrorKey] is DecodingError)
    }

    @Test func usesTheConfiguredDecoder() throws {
        let serializer = DecodableResponseSerializer(User.self) {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        struct Named: Decodable, Sendable { var fullName: String }
        let named = DecodableResponseSerializer(Named.self, makeDecoder: serializer.makeDecoder)
        let value = try named.decode(httpResponse(contentType: "text/json"), data: utf8(#"{"full_name":"Ada Lovelace"}"#))
        #expect(value?.fullName == "Ada Lovelace")
    }
}
