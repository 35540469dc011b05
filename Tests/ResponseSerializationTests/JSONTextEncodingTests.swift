import AFProtocols
import Foundation
import Testing
@testable import AFResponseSerialization

/// UTF-16 and UTF-32 JSON: detected, transcoded to UTF-8 and held to the same grammar as UTF-8.
@Suite struct JSONTextEncodingTests {
    /// `text` in `encoding`, after an optional byte order mark.
    func encoded(_ text: String, _ encoding: String.Encoding, mark: [UInt8] = []) -> Data {
        Data(mark) + text.data(using: encoding)!
    }

    func decode(_ data: Data, removingNulls: Bool = false) throws -> ParameterValue {
        try JSONResponseSerializer.decode(data, options: [], removingNulls: removingNulls)
    }

    func failure(_ data: Data) throws -> JSONParsingError {
        try #require(throws: JSONParsingError.self) { try decode(data) }
    }

    static let marks: [(String.Encoding, [UInt8])] = [
        (.utf16LittleEndian, [0xFF, 0xFE]), (.utf16BigEndian, [0xFE, 0xFF]),
        (.utf32LittleEndian, [0xFF, 0xFE, 0, 0]), (.utf32BigEndian, [0, 0, 0xFE, 0xFF]),
    ]

    @Test func trailingCommaIsRefusedInEveryEncodingAsInUTF8() throws {
        let text = "{\"a\": [1, 2,]}"
        let utf8Error = try failure(utf8(text))
        #expect(utf8Error == JSONParsingError(message: "Invalid value", offset: 12, line: 1, column: 13))
        // JSONSerialization, which UTF-16 bodies used to go to, accepts it.
        #expect(try JSONSerialization.jsonObject(with: encoded(text, .utf16LittleEndian)) is [String: Any])
        for (encoding, mark) in Self.marks {
            #expect(try failure(encoded(text, encoding)) == utf8Error, "\(encoding)")
            #expect(try failure(encoded(text, encoding, mark: mark)) == utf8Error, "\(encoding) with a mark")
        }
    }

    @Test func garbageAfterANULIsRefused() throws {
        let expected = JSONParsingError(message: "Garbage at end", offset: 3, line: 1, column: 4)
        #expect(try failure(encoded("[1]\u{0}xyz", .utf16LittleEndian)) == expected)
        #expect(try failure(encoded("[1]\u{0}xyz", .utf32BigEndian, mark: [0, 0, 0xFE, 0xFF])) == expected)
    }

    @Test func validDocumentsDecodeExactly() throws {
        let text = "{\"name\": \"Zoë\", \"emoji\": \"😀\", \"list\": [1, 2.5, true, null], \"nested\": {\"k\": \"\\u00e9\"}}"
        let expected: ParameterValue = ["name": "Zoë", "emoji": "😀", "list": [1, 2.5, true, nil], "nested": ["k": "é"]]
        #expect(try decode(encoded(text, .utf16BigEndian)) == expected)
        #expect(try decode(encoded(text, .utf16BigEndian, mark: [0xFE, 0xFF])) == expected)
        #expect(try decode(encoded(text, .utf32LittleEndian)) == expected)
        #expect(try decode(encoded(text, .utf32LittleEndian, mark: [0xFF, 0xFE, 0, 0])) == expected)
        #expect(try decode(encoded(text, .utf16LittleEndian), removingNulls: true) ==
                ["name": "Zoë", "emoji": "😀", "list": [1, 2.5, true], "nested": ["k": "é"]])
        #expect(try JSONResponseSerializer.decode(encoded("7", .utf16LittleEndian), options: .fragmentsAllowed) == 7)
    }

    @Test func invalidCodeUnitsAreTypedErrors() throws {
        // `["` then the bad unit: positions count the UTF-8 text decoded so far.
        func utf16LE(_ units: [UInt16]) -> Data { Data(units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }
        func utf32BE(_ values: [UInt32]) -> Data {
            Data(values.flatMap { [UInt8($0 >> 24), UInt8($0 >> 16 & 0xFF), UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF)] })
        }
        let quote: [UInt16] = [0x5B, 0x22]
        #expect(try failure(utf16LE(quote + [0xD83D, 0x22, 0x5D])) ==
                JSONParsingError(message: "Invalid UTF-16: unpaired high surrogate", offset: 2, line: 1, column: 3))
        #expect(try failure(utf16LE(quote + [0xD83D])) ==
                JSONParsingError(message: "Invalid UTF-16: unpaired high surrogate", offset: 2, line: 1, column: 3))
        #expect(try failure(utf16LE(quote + [0xDE00, 0x22, 0x5D])) ==
                JSONParsingError(message: "Invalid UTF-16: unpaired low surrogate", offset: 2, line: 1, column: 3))
        #expect(try failure(utf16LE(quote + [0xE9, 0x22, 0x5D]) + Data([0x0A])) ==
                JSONParsingError(message: "Invalid UTF-16: truncated code unit", offset: 6, line: 1, column: 7))
        #expect(try failure(utf32BE([0x5B, 0x22, 0xD800, 0x22, 0x5D])) ==
                JSONParsingError(message: "Invalid UTF-32: not a Unicode scalar value", offset: 2, line: 1, column: 3))
        #expect(try failure(utf32BE([0x5B, 0x0A, 0x110000])) ==
                JSONParsingError(message: "Invalid UTF-32: not a Unicode scalar value", offset: 2, line: 2, column: 1))
        #expect(try failure(utf32BE([0x5B, 0x5D]) + Data([0, 0])) ==
                JSONParsingError(message: "Invalid UTF-32: truncated code unit", offset: 2, line: 1, column: 3))
    }

    @Test func detectionFollowsMarksThenNULPatterns() {
        func detect(_ bytes: [UInt8]) -> JSONTextEncoding {
            bytes.withUnsafeBufferPointer { JSONTextEncoding.detect($0).encoding }
        }
        #expect(detect([0x5B, 0x31, 0x5D]) == .utf8)
        #expect(detect([0xEF, 0xBB, 0xBF, 0x5B]) == .utf8)
        #expect(detect([0x5B, 0]) == .utf16(bigEndian: false))
        #expect(detect([0, 0x5B]) == .utf16(bigEndian: true))
        #expect(detect([0x5B, 0, 0, 0]) == .utf32(bigEndian: false))
        #expect(detect([0, 0, 0, 0x5B]) == .utf32(bigEndian: true))
        #expect(detect([0xFF, 0xFE, 0x5B, 0]) == .utf16(bigEndian: false))
        #expect(detect([0xFF, 0xFE, 0, 0]) == .utf32(bigEndian: false))
        #expect(detect([0x31]) == .utf8)
    }

    @Test func serializerReportsTheSameErrorForUTF16() throws {
        let text = "[1,]"
        let serializer = JSONResponseSerializer()
        let utf8Result = serializer.responseObject(for: httpResponse(contentType: "application/json"), data: utf8(text))
        let utf16Result = serializer.responseObject(for: httpResponse(contentType: "application/json"),
                                                    data: encoded(text, .utf16LittleEndian, mark: [0xFF, 0xFE]))
        let utf8Error = try #require(utf8Result.error as NSError?)
        let utf16Error = try #require(utf16Result.error as NSError?)
        #expect(utf16Error.code == -1016)
        #expect(utf16Error.localizedDescription == utf8Error.localizedDescription)
        let parserError = try #require(utf16Error.userInfo[ResponseSerializationParserErrorKey] as? JSONParsingError)
        #expect(parserError == JSONParsingError(message: "Invalid value", offset: 3, line: 1, column: 4))
        #expect(utf8Error.userInfo[ResponseSerializationParserErrorKey] as? JSONParsingError == parserError)
        #expect(utf16Result.object == nil)
    }
}
