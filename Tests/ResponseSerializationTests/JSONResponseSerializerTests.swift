import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFResponseSerialization

/// AFJSONResponseSerializationTests, plus AF 4.0's null removal, object-with-error and coding.
@Suite struct JSONResponseSerializerTests {
    let serializer = JSONResponseSerializer()
    let fooBar = utf8(#"{"foo":"bar"}"#)

    @Test(arguments: ["application/json", "text/json", "text/javascript"])
    func acceptsTheJSONContentTypes(_ contentType: String) {
        let result = serializer.validateResponse(httpResponse(contentType: contentType), data: fooBar)
        #expect(result.isValid)
        #expect(result.error == nil)
    }

    @Test func doesNotAcceptNonStandardJSONContentType() throws {
        let result = serializer.validateResponse(httpResponse(contentType: "nonstandard/json"), data: fooBar)
        let error = try #require(result.error)
        #expect(error.code == -1016)
        #expect(error.localizedDescription == "Request failed: unacceptable content-type: nonstandard/json")
        let serialized = serializer.responseObject(for: httpResponse(contentType: "nonstandard/json"), data: fooBar)
        #expect(serialized.object == nil)
        #expect((serialized.error as NSError?)?.code == -1016)
    }

    @Test func returnsDictionaryForValidJSONDictionary() throws {
        let result = serializer.responseObject(for: httpResponse(contentType: "text/json"), data: fooBar)
        #expect(result.error == nil)
        #expect(result.object as? ParameterValue == ["foo": "bar"])
    }

    @Test func decodesEveryJSONType() throws {
        let data = utf8(#"{"s":"x","i":-3,"d":2.5,"t":true,"f":false,"n":null,"a":[1,"2"],"o":{"k":[]}}"#)
        let result = serializer.responseObject(for: httpResponse(contentType: "application/json"), data: data)
        #expect(result.object as? ParameterValue == [
            "s": "x", "i": -3, "d": 2.5, "t": true, "f": false, "n": nil, "a": [1, "2"], "o": ["k": []],
        ])
    }

    @Test func returnsErrorForInvalidJSON() throws {
        let data = utf8("{invalid}")
        let result = serializer.responseObject(for: httpResponse(contentType: "text/json"), data: data)
        #expect(result.object == nil)
        let error = try #require(result.error as NSError?)
        #expect(error.domain == "com.alamofire.error.serialization.response")
        #expect(error.code == -1016)
        #expect(error.localizedDescription == "Request failed: the response is not valid JSON: Expected a string key in object at line 1, column 2")
        #expect(error.userInfo[NSUnderlyingErrorKey] == nil)
        let parserError = try #require(error.userInfo[ResponseSerializationParserErrorKey] as? JSONParsingError)
        #expect(parserError.offset == 1)
        #expect(error.userInfo["com.alamofire.serialization.response.error.data"] as? Data == data)
    }

    @Test func invalidJSONWithAFailedStatusChainsTheValidationError() throws {
        let result = serializer.responseObject(for: httpResponse(status: 500, contentType: "application/json"), data: utf8("<html>"))
        let error = try #require(result.error as NSError?)
        #expect(error.code == -1016)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.code == -1011)
        #expect(underlying.localizedDescription == "Request failed: internal server error (500)")
    }

    @Test func returnsNilObjectAndNilErrorForEmptyData() {
        let result = serializer.responseObject(for: httpResponse(contentType: "text/json"), data: Data())
        #expect(result.object == nil)
        #expect(result.error == nil)
        let none = serializer.responseObject(for: httpResponse(status: 204, contentType: "text/json"), data: nil)
        #expect(none.object == nil)
        #expect(none.error == nil)
    }

    @Test func returnsNilObjectAndNilErrorForSingleSpace() {
        let result = serializer.responseObject(for: httpResponse(contentType: "text/json"), data: utf8(" "))
        #expect(result.object == nil)
        #expect(result.error == nil)
    }

    @Test func removesKeysWithNullValues() throws {
        var serializer = serializer
        serializer.removesKeysWithNullValues = true
        let data = utf8(#"{"key":"value","nullkey":null,"array":[{"subnullkey":null}],"arrayWithNulls":[null]}"#)
        let result = serializer.responseObject(for: httpResponse(contentType: "text/json"), data: data)
        #expect(result.error == nil)
        let object = try #require(result.object as? ParameterValue)
        #expect(object["key"] == "value")
        #expect(object["nullkey"] == nil)
        #expect(object["array"]?[0]?["subnullkey"] == nil)
        #expect(object == ["key": "value", "array": [[:]], "arrayWithNulls": []])
    }

    /// Found by the JSONResponse fuzz target: the last of repeated keys wins, then nulls go, exactly as
    /// when nulls are removed from the parsed tree.
    @Test func aRepeatedKeyEndingInNullIsRemoved() throws {
        let data = utf8(#"{"key":"value","nullkey":"value","nullkey":null,"other":null,"again":null,"again":1}"#)
        var removing = serializer
        removing.removesKeysWithNullValues = true
        let removed = try #require(removing.responseObject(for: httpResponse(contentType: "text/json"), data: data).object
            as? ParameterValue)
        #expect(removed == ["key": "value", "again": 1])
        let kept = try #require(serializer.responseObject(for: httpResponse(contentType: "text/json"), data: data).object
            as? ParameterValue)
        #expect(kept == ["key": "value", "nullkey": .null, "other": .null, "again": 1])
    }

    @Test func keepsNullsByDefault() throws {
        let result = serializer.responseObject(for: httpResponse(contentType: "text/json"), data: utf8(#"{"a":null,"b":[null]}"#))
        #expect(result.object as? ParameterValue == ["a": nil, "b": [nil]])
    }

    @Test func parsesTheBodyOfAFailedStatus() throws {
        let data = utf8(#"{"message":"not found"}"#)
        let result = serializer.responseObject(for: httpResponse(status: 404, contentType: "application/json"), data: data)
        #expect(result.object as? ParameterValue == ["message": "not found"])
        let error = try #require(result.error as NSError?)
        #expect(error.code == -1011)
        #expect(error.localizedDescription == "Request failed: not found (404)")
        #expect(error.userInfo["com.alamofire.serialization.response.error.data"] as? Data == data)
    }

    @Test func fragmentsNeedTheReadingOption() throws {
        let data = utf8("42")
        #expect(serializer.responseObject(for: httpResponse(contentType: "application/json"), data: data).error != nil)
        let allowing = JSONResponseSerializer(readingOptions: .fragmentsAllowed)
        let result = allowing.responseObject(for: httpResponse(contentType: "application/json"), data: data)
        #expect(result.error == nil)
        #expect(result.object as? ParameterValue == 42)
    }

    @Test func canBeCopiedAndCoded() throws {
        var original = serializer
        original.removesKeysWithNullValues = true
        original.readingOptions = .fragmentsAllowed
        original.acceptableStatusCodes = IndexSet(integer: 100)
        original.acceptableContentTypes = ["test/type"]
        let copy = original
        original.removesKeysWithNullValues = false
        #expect(copy.removesKeysWithNullValues)
        let decoded = try JSONDecoder().decode(JSONResponseSerializer.self, from: JSONEncoder().encode(copy))
        #expect(decoded == copy)
        #expect(decoded.readingOptions == .fragmentsAllowed)
        #expect(decoded.acceptableStatusCodes == IndexSet(integer: 100))
        #expect(decoded.acceptableContentTypes == ["test/type"])
        #expect(decoded.removesKeysWithNullValues)
    }
}
