import AFProtocols
import Foundation

/// Why a JSON body did not parse: the message and the position (byte offset, 1-based line and column).
/// Positions count UTF-8 bytes; for UTF-16 and UTF-32 text, those of the text transcoded to UTF-8.
///
/// Threading: a value type; safe to share.
public struct JSONParsingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The byte offset of the failure.
    public var offset: Int
    /// The 1-based line of the failure.
    public var line: Int
    /// The 1-based column (in bytes) of the failure.
    public var column: Int

    public var description: String { "\(message) at line \(line), column \(column)" }
}

extension JSONParsingError {
    /// An error at `offset` in `text`, with its line and column worked out.
    init(_ message: String, at offset: Int, in text: UnsafeBufferPointer<UInt8>) {
        let offset = min(offset, text.count)
        var line = 1
        var lineStart = 0
        for position in 0..<offset where text[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        self.init(message: message, offset: offset, line: line, column: offset - lineStart + 1)
    }
}

/// An RFC 8259 JSON parser that builds ``ParameterValue`` directly from UTF-8 bytes.
///
/// Why not Foundation: `JSONSerialization` followed by `ParameterValue(foundationObject:)` bridges every
/// value through `NSNumber`/`NSString`, and `JSONDecoder` into `ParameterValue` probes each type in turn
/// with thrown errors; both are several times slower (Bench/Sources/JSONResponse). Semantics follow
/// `JSONSerialization`: integers that fit `Int` are `.int`, other numbers `.double` (one too large for a
/// `Double` is an error, one too small becomes zero); a repeated key keeps its last value; strings must be
/// valid UTF-8 (escapes included, surrogate pairs joined); nesting is bounded (512 levels) so hostile
/// input cannot exhaust the stack. UTF-16 and UTF-32 text is transcoded to UTF-8 first
/// (``JSONTextEncoding``), so every encoding obeys this grammar.
///
/// Keys that differ only by Unicode normalization (`"\u{E9}"` and `"e\u{301}"`) are an error: a
/// `[String: ParameterValue]` would merge them (Swift strings compare by canonical equivalence), where
/// AFNetworking's `NSDictionary` on Apple platforms keeps both.
struct JSONValueParser {
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private let dropsNulls: Bool
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, dropsNulls: Bool) {
        self.bytes = bytes
        self.dropsNulls = dropsNulls
    }

    /// Parses one JSON text. Without `allowsFragments` the top level must be an array or an object.
    /// With `dropsNulls`, `null` dictionary values and array elements are left out at every level
    /// (a top-level `null` fragment stays `.null`).
    static func parse(_ data: Data, allowsFragments: Bool, dropsNulls: Bool = false) throws -> ParameterValue {
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let transcoded = try JSONTextEncoding.utf8Text(of: bytes) else {
                return try parse(bytes, allowsFragments: allowsFragments, dropsNulls: dropsNulls)
            }
            return try transcoded.withUnsafeBufferPointer {
                try parse($0, allowsFragments: allowsFragments, dropsNulls: dropsNulls)
            }
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, allowsFragments: Bool, dropsNulls: Bool) throws -> ParameterValue {
        var parser = JSONValueParser(bytes: bytes, dropsNulls: dropsNulls)
        return try parser.parseDocument(allowsFragments: allowsFragments)
    }

    private mutating func parseDocument(allowsFragments: Bool) throws -> ParameterValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw failure("Unexpected end of file") }
        if !allowsFragments, bytes[index] != UInt8(ascii: "{"), bytes[index] != UInt8(ascii: "[") {
            throw failure("JSON text did not start with array or object and option to allow fragments not set")
        }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("Garbage at end") }
        return value
    }

    private mutating func parseValue() throws -> ParameterValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("Unexpected end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("Invalid value")
        }
    }

    private mutating func parseObject() throws -> ParameterValue {
        try enterContainer()
        defer { depth -= 1 }
        index += 1
        var dictionary: [String: ParameterValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .dictionary(dictionary)
        }
        // Nulls are kept until the object ends, so a repeated key sees its earlier twin either way.
        var hasNull = false
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("Expected a string key in object")
            }
            let keyStart = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("Expected ':' after key") }
            index += 1
            let value = try parseValue()
            if value.isNull { hasNull = true }
            // The last of repeated keys wins (as JSONSerialization has it), so a later null removes an
            // earlier value when nulls are dropped. The dictionary keeps the first spelling of a key.
            if dictionary.updateValue(value, forKey: key) != nil,
               let stored = dictionary.index(forKey: key).map({ dictionary.keys[$0] }),
               !stored.utf8.elementsEqual(key.utf8) {
                throw failure("Duplicate key after Unicode normalization", at: keyStart)
            }
            skipWhitespace()
            guard index < bytes.count else { throw failure("Unexpected end of file in object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .dictionary(dropsNulls && hasNull ? dictionary.filter { !$0.value.isNull } : dictionary)
            }
            throw failure("Expected ',' or '}' in object")
        }
    }

    private mutating func parseArray() throws -> ParameterValue {
        try enterContainer()
        defer { depth -= 1 }
        index += 1
        var array: [ParameterValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(array)
        }
        while true {
            let value = try parseValue()
            if !(dropsNulls && value.isNull) { array.append(value) }
            skipWhitespace()
            guard index < bytes.count else { throw failure("Unexpected end of file in array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
            throw failure("Expected ',' or ']' in array")
        }
    }

    private mutating func enterContainer() throws {
        depth += 1
        if depth > Self.maximumDepth { throw failure("Too many nested arrays or dictionaries") }
    }

    /// Parses a string starting at its opening quote.
    private mutating func parseString() throws -> String {
        index += 1
        let start = index
        var isASCII = true
        // Fast path: no escapes, so the bytes are the string (and ASCII needs no UTF-8 validation).
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let string = isASCII ? String(decoding: slice, as: UTF8.self) : try validatedString(slice, at: start)
                index += 1
                return string
            }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("Unescaped control character in string") }
            index += 1
        }
        guard index < bytes.count else { throw failure("Unterminated string", at: start - 1) }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try buffer.withUnsafeBufferPointer { try validatedString($0, at: start) }
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"): appendUTF8(of: try parseUnicodeEscape(), to: &buffer)
                default: throw failure("Invalid escape sequence", at: index - 2)
                }
            default:
                if byte < 0x20 { throw failure("Unescaped control character in string") }
                buffer.append(byte)
                index += 1
            }
        }
        throw failure("Unterminated string", at: start - 1)
    }

    /// Parses the hex digits after `\u` (and a following low surrogate escape when needed).
    private mutating func parseUnicodeEscape() throws -> Unicode.Scalar {
        let first = try parseHex4()
        switch first {
        case 0xD800...0xDBFF:
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("Unpaired high surrogate in \\u escape")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("Invalid low surrogate in \\u escape") }
            let value = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            return Unicode.Scalar(value)!
        case 0xDC00...0xDFFF:
            throw failure("Unpaired low surrogate in \\u escape")
        default:
            return Unicode.Scalar(first)!
        }
    }

    private mutating func parseHex4() throws -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("Truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("Invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func appendUTF8(of scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        UTF8.encode(scalar) { buffer.append($0) }
    }

    private func validatedString(_ utf8: UnsafeBufferPointer<UInt8>, at offset: Int) throws -> String {
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw failure("Invalid UTF-8 in string", at: offset)
        }
        return string
    }

    /// Parses a number: integers that fit `Int` become `.int`, everything else `.double`.
    private mutating func parseNumber() throws -> ParameterValue {
        let start = index
        var isNegative = false
        if bytes[index] == UInt8(ascii: "-") {
            isNegative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("Invalid number", at: start) }
        var integer = 0
        var overflowed = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("Leading zero in number", at: start) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int(bytes[index] - UInt8(ascii: "0"))
                // Accumulate negatively so Int.min parses.
                let (multiplied, overflow1) = integer.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = multiplied.subtractingReportingOverflow(digit)
                if overflow1 || overflow2 { overflowed = true } else { integer = next }
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("Expected digits after '.'", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("Expected digits in exponent", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger && !overflowed {
            if isNegative { return .int(integer) }
            if integer != Int.min { return .int(-integer) }
        }
        // The grammar is checked above. Double(String) is locale-independent (strtod is not), and a
        // number of up to 15 bytes is a small string, so no allocation.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw failure("Invalid number", at: start) }
        // Double(String) rounds an overflow to infinity, which JSON cannot express; JSONSerialization
        // refuses it too. An underflow becomes (signed) zero, as it does there.
        guard value.isFinite else { throw failure("Number too large to represent as a Double", at: start) }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("Invalid value") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] { throw failure("Invalid value") }
        index += count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func failure(_ message: String, at offset: Int? = nil) -> JSONParsingError {
        JSONParsingError(message, at: offset ?? index, in: bytes)
    }
}
