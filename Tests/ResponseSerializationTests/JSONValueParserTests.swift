import AFProtocols
import Foundation
import Testing
@testable import AFResponseSerialization

/// The JSON parser behind JSONResponseSerializer, against JSONSerialization's semantics.
@Suite struct JSONValueParserTests {
    func parse(_ text: String, fragments: Bool = true) throws -> ParameterValue {
        try JSONValueParser.parse(utf8(text), allowsFragments: fragments)
    }

    func failure(_ text: String, fragments: Bool = true) throws -> JSONParsingError {
        try #require(throws: JSONParsingError.self) { try parse(text, fragments: fragments) }
    }

    @Test func parsesNumbersAsJSONSerializationDoes() throws {
        #expect(try parse("0") == 0)
        #expect(try parse("-0") == 0)
        #expect(try parse("42") == 42)
        #expect(try parse("-17") == -17)
        #expect(try parse("9223372036854775807") == .int(Int.max))
        #expect(try parse("-9223372036854775808") == .int(Int.min))
        #expect(try parse("9223372036854775808") == .double(9223372036854775808.0))
        #expect(try parse("1.5") == 1.5)
        #expect(try parse("1.0") == .double(1.0))
        #expect(try parse("-2.5e3") == -2500.0)
        #expect(try parse("1E-2") == 0.01)
        for bad in ["01", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity"] {
            #expect(throws: JSONParsingError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test func parsesStringsWithEscapes() throws {
        #expect(try parse(#""plain""#) == "plain")
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u00e9\u4e2d""#) == "é中")
        #expect(try parse(#""\ud83d\ude00""#) == "😀")
        #expect(try parse("\"héllo 😀\"") == "héllo 😀")
        #expect(try failure(#""\ud83d""#).message == "Unpaired high surrogate in \\u escape")
        #expect(try failure(#""\ude00""#).message == "Unpaired low surrogate in \\u escape")
        #expect(try failure(#""\x""#).message == "Invalid escape sequence")
        #expect(try failure("\"a\nb\"").message == "Unescaped control character in string")
        #expect(try failure(#""open"#).message == "Unterminated string")
        var invalid = Data("[\"".utf8)
        invalid.append(contentsOf: [0xC3, 0x28])
        invalid.append(contentsOf: Data("\"]".utf8))
        let error = try #require(throws: JSONParsingError.self) { try JSONValueParser.parse(invalid, allowsFragments: false) }
        #expect(error.message == "Invalid UTF-8 in string")
        #expect(error.offset == 2)
    }

    @Test func parsesContainersAndLiterals() throws {
        #expect(try parse(" { \"a\" : [ true , false , null ] , \"b\" : { } , \"c\" : [ ] } ") ==
                ["a": [true, false, nil], "b": [:], "c": []])
        #expect(try parse(#"{"k":1,"k":2}"#) == ["k": 2])
        #expect(try parse("\u{FEFF}[1]") == [1])
    }

    @Test func rejectsMalformedDocumentsWithPositions() throws {
        let error = try failure("{\n  \"a\": 1,\n  \"b\": tru\n}")
        #expect(error.message == "Invalid value")
        #expect(error.line == 3)
        #expect(error.column == 8)
        #expect(try failure("[1,]").message == "Invalid value")
        #expect(try failure("[1 2]").message == "Expected ',' or ']' in array")
        #expect(try failure(#"{"a" 1}"#).message == "Expected ':' after key")
        #expect(try failure("{1:2}").message == "Expected a string key in object")
        #expect(try failure("[1] x").message == "Garbage at end")
        #expect(try failure("").message == "Unexpected end of file")
        #expect(try failure("[").message == "Unexpected end of file")
    }

    @Test func fragmentsNeedTheOption() throws {
        #expect(try failure("\"x\"", fragments: false).message ==
                "JSON text did not start with array or object and option to allow fragments not set")
        #expect(try parse("\"x\"", fragments: true) == "x")
        #expect(try parse("null", fragments: true) == nil)
    }

    @Test func boundsNesting() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try parse(deepest) }
        let tooDeep = String(repeating: "[", count: 100_000)
        #expect(try failure(tooDeep).message == "Too many nested arrays or dictionaries")
    }

    @Test func utf16TextIsTranscoded() throws {
        let data = "[\"ü\"]".data(using: .utf16LittleEndian)!
        #expect(try JSONResponseSerializer.decode(data, options: []) == ["ü"])
    }

    @Test func numbersThatOverflowADoubleAreRefused() throws {
        // Double(String) rounds these to infinity; JSONSerialization refuses them too.
        for text in ["[1e999999]", "[-1e999999]", "[1.8e308]", "[123456789012345678901234567890e300]"] {
            #expect(try failure(text) == JSONParsingError(message: "Number too large to represent as a Double",
                                                          offset: 1, line: 1, column: 2), "\(text)")
            #expect(throws: (any Error).self, "\(text)") { try JSONSerialization.jsonObject(with: utf8(text)) }
        }
        #expect(try parse("[1.7976931348623157e308, -1.7976931348623157e308]") ==
                [.double(.greatestFiniteMagnitude), .double(-.greatestFiniteMagnitude)])
    }

    @Test func numbersThatUnderflowBecomeZeroAsInJSONSerialization() throws {
        // JSONSerialization on this platform reads [1e-999999, -1e-999999] as [0.0, -0.0] and keeps
        // subnormals; the parser does the same.
        let foundation = try #require(try JSONSerialization.jsonObject(with: utf8("[1e-999999, -1e-999999, 1e-320]")) as? [Double])
        let subnormal = try #require(Double("1e-320"))
        #expect(foundation.map(\.sign) == [.plus, .minus, .plus])
        #expect(foundation == [0, 0, subnormal])
        let parsed = try parse("[1e-999999, -1e-999999, 1e-320]")
        #expect(parsed == [.double(0), .double(0), .double(subnormal)])
        #expect(parsed.arrayValue?.compactMap(\.doubleValue).map(\.sign) == [.plus, .minus, .plus])
    }

    @Test func keysDifferingOnlyByNormalizationAreRefused() throws {
        // "\u{E9}" and "e\u{301}" are one key to a Swift dictionary; keeping one would drop a member.
        let expected = JSONParsingError(message: "Duplicate key after Unicode normalization", offset: 10, line: 1, column: 11)
        #expect(try failure("{\"\u{E9}\": 1, \"e\u{301}\": 2}") == expected)
        #expect(throws: JSONParsingError(message: "Duplicate key after Unicode normalization", offset: 13, line: 1, column: 14)) {
            try JSONValueParser.parse(utf8("{\"\u{E9}\": null, \"e\u{301}\": 2}"), allowsFragments: false, dropsNulls: true)
        }
        #expect(try failure("[{\"e\u{301}\": 1, \"\u{E9}\": 2}]") ==
                JSONParsingError(message: "Duplicate key after Unicode normalization", offset: 12, line: 1, column: 13))
        // Keys repeated byte for byte keep the last value, as before; distinct keys stay distinct.
        #expect(try parse("{\"\u{E9}\": 1, \"\u{E9}\": 2, \"e\": 3}") == ["\u{E9}": 2, "e": 3])
        #expect(try JSONValueParser.parse(utf8("{\"k\": 1, \"k\": null}"), allowsFragments: false, dropsNulls: true) == [:])
        #expect(try JSONValueParser.parse(utf8("{\"k\": null, \"k\": 1}"), allowsFragments: false, dropsNulls: true) == ["k": 1])
    }
}

@Suite struct JSONNullRemovalTests {
    static let document = #"{"key":"value","nullkey":null,"array":[{"subnullkey":null},null,[null,1]],"arrayWithNulls":[null]}"#
    static let expected: ParameterValue = ["key": "value", "array": [[:], [1]], "arrayWithNulls": []]

    @Test func parserDropsNullsAtEveryLevel() throws {
        #expect(try JSONValueParser.parse(utf8(Self.document), allowsFragments: false, dropsNulls: true) == Self.expected)
    }

    @Test func treeRemovalMatchesTheParser() throws {
        let kept = try JSONValueParser.parse(utf8(Self.document), allowsFragments: false)
        #expect(kept.removingNullValues() == Self.expected)
    }

    @Test func utf16PathRemovesNullsToo() throws {
        let data = Self.document.data(using: .utf16BigEndian)!
        #expect(try JSONResponseSerializer.decode(data, options: [], removingNulls: true) == Self.expected)
    }
}
