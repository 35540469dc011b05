import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AFProtocols
@testable import AFRequestSerialization

@Suite("Query string and percent escaping (SPEC 1)")
struct QueryStringTests {
    @Test func nestedDictionaryKeysAreSortedAndBracketed() {
        #expect(queryString(from: ["a": ["c": 3, "b": 2]]) == "a%5Bb%5D=2&a%5Bc%5D=3")
    }

    @Test func arraysRepeatTheBracketedKeyInOrder() {
        #expect(queryString(from: ["a": [1, 2]]) == "a%5B%5D=1&a%5B%5D=2")
        #expect(queryString(from: ["a": [3, 1, 2]]) == "a%5B%5D=3&a%5B%5D=1&a%5B%5D=2")
    }

    @Test func nullGivesTheBareKey() {
        #expect(queryString(from: ["a": nil]) == "a")
        #expect(queryString(from: ["a": nil, "b": "x"]) == "a&b=x")
    }

    @Test func setsAreSortedUnderTheSameKey() {
        #expect(queryString(from: ["s": .set(["b", "a", "c"])]) == "s=a&s=b&s=c")
    }

    @Test func asciiKeysSortByteByByte() {
        #expect(queryString(from: ["a": 1, "B": 2]) == "B=2&a=1")
        #expect(queryString(from: ["9": 1, "10": 2]) == "10=2&9=1")
    }

    @Test func keysSortAsNSStringCompareDoes() {
        // AFNetworking: e, é, z (compare: is not literal); code point order would give e, z, é.
        #expect(queryString(from: ["z": 3, "\u{E9}": 2, "e": 1]) == "e=1&%C3%A9=2&z=3")
        #expect(queryString(from: ["z": 3, "e\u{301}": 2, "e": 1]) == "e=1&e%CC%81=2&z=3")
        #expect(queryString(from: ["a": ["f": 2, "\u{E9}": 1]]) == "a%5B%C3%A9%5D=1&a%5Bf%5D=2")
        #expect(queryString(from: ["s": .set(["z", "\u{E9}", "e"])]) == "s=e&s=%C3%A9&s=z")
    }

    @Test func foundationParametersWithNormalizationTwinKeysAreRefused() throws {
        // Both spellings of "é" as NSDictionary keys cannot both reach a ParameterValue; the request fails
        // rather than silently sending one of them.
        let parameters = LiteralKeyDictionary(["\u{E9}": 1, "e\u{301}": 2])
        let request = URLRequest(url: URL(string: "http://example.com/p")!)
        let error = try #require(throws: RequestSerializationError.self) {
            try HTTPRequestSerializer().request(bySerializing: request, withFoundationParameters: parameters)
        }
        #expect(error.reason == .unsupportedParameters)
        #expect(error.underlyingError as? ParameterValueConversionError == .duplicateKeyAfterNormalization("\u{E9}"))
    }

    @Test func booleansAndNumbersPrintAsAFNetworkingDoes() {
        #expect(queryString(from: ["t": true, "f": false, "i": 42, "d": 1.5, "w": 2.0]) == "d=1.5&f=0&i=42&t=1&w=2")
    }

    @Test func emptyParametersGiveAnEmptyQuery() {
        #expect(queryString(from: [:]) == "")
    }

    @Test func escapingKeepsOnlyUnreservedSlashAndQuestionMark() {
        #expect(percentEscapedString("AZaz09-._~/?") == "AZaz09-._~/?")
        #expect(percentEscapedString("a b%c") == "a%20b%25c")
        #expect(percentEscapedString("é") == "%C3%A9")
        #expect(percentEscapedString("\u{0}") == "%00")
    }

    @Test func nestedArraysAndDictionariesInsideArrays() {
        #expect(queryString(from: ["a": [["b": 1]], "c": [[1]]]) == "a%5B%5D%5Bb%5D=1&c%5B%5D%5B%5D=1")
    }

    @Test func queryIsAppendedWithAmpersandWhenTheURLHasOne() throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.request(method: "GET", urlString: "http://example.com/p?x=1#frag", parameters: ["y": 2])
        #expect(request.url?.absoluteString == "http://example.com/p?x=1&y=2#frag")
    }

    @Test func deleteAndHeadUseTheQueryAndMethodsCompareUpperCased() throws {
        let serializer = HTTPRequestSerializer()
        for method in ["delete", "HEAD", "get"] {
            let request = try serializer.request(method: method, urlString: "http://example.com", parameters: ["k": "v"])
            #expect(request.url?.query == "k=v")
            #expect(request.httpBody == nil)
        }
        let put = try serializer.request(method: "PUT", urlString: "http://example.com", parameters: ["k": "v"])
        #expect(put.url?.query == nil)
        #expect(put.httpBody == Data("k=v".utf8))
    }
}
