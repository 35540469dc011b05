import Foundation

/// The Unicode encodings JSON text may arrive in, detected as `JSONSerialization` does (RFC 4627 §3: a
/// byte order mark, else the pattern of NUL bytes the first, always ASCII, characters leave), and the
/// transcoding of UTF-16 and UTF-32 text to UTF-8, so that ``JSONValueParser`` applies one grammar to
/// every encoding.
enum JSONTextEncoding: Equatable {
    case utf8
    case utf16(bigEndian: Bool)
    case utf32(bigEndian: Bool)

    /// The encoding of `bytes` and the length of its byte order mark (a UTF-8 mark is left to the parser).
    static func detect(_ bytes: UnsafeBufferPointer<UInt8>) -> (encoding: JSONTextEncoding, markLength: Int) {
        let count = bytes.count
        if count >= 4 {
            if bytes[0] == 0, bytes[1] == 0, bytes[2] == 0xFE, bytes[3] == 0xFF { return (.utf32(bigEndian: true), 4) }
            // Not UTF-16LE's mark before U+0000: no JSON text starts with NUL.
            if bytes[0] == 0xFF, bytes[1] == 0xFE, bytes[2] == 0, bytes[3] == 0 { return (.utf32(bigEndian: false), 4) }
        }
        if count >= 2 {
            if bytes[0] == 0xFE, bytes[1] == 0xFF { return (.utf16(bigEndian: true), 2) }
            if bytes[0] == 0xFF, bytes[1] == 0xFE { return (.utf16(bigEndian: false), 2) }
        }
        if count >= 4 {
            if bytes[0] == 0, bytes[1] == 0, bytes[2] == 0 { return (.utf32(bigEndian: true), 0) }
            if bytes[1] == 0, bytes[2] == 0, bytes[3] == 0 { return (.utf32(bigEndian: false), 0) }
        }
        if count >= 2 {
            if bytes[0] == 0 { return (.utf16(bigEndian: true), 0) }
            if bytes[1] == 0 { return (.utf16(bigEndian: false), 0) }
        }
        return (.utf8, 0)
    }

    /// `bytes` as UTF-8, or `nil` when they already are UTF-8.
    /// - Throws: ``JSONParsingError`` for a truncated code unit, an unpaired surrogate or a value beyond
    ///   U+10FFFF, positioned in the UTF-8 text decoded so far.
    static func utf8Text(of bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        let (encoding, markLength) = detect(bytes)
        let body = UnsafeBufferPointer(rebasing: bytes[markLength...])
        switch encoding {
        case .utf8: return nil
        case .utf16(let bigEndian): return try transcodeUTF16(body, bigEndian: bigEndian)
        case .utf32(let bigEndian): return try transcodeUTF32(body, bigEndian: bigEndian)
        }
    }

    private static func transcodeUTF16(_ bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 2 * 3)
        func unit(at index: Int) -> UInt32 {
            bigEndian ? UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
                : UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index])
        }
        var index = 0
        while index + 1 < bytes.count {
            let first = unit(at: index)
            index += 2
            var value = first
            if (0xD800...0xDBFF).contains(first) {
                let second = index + 1 < bytes.count ? unit(at: index) : 0
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw failure("Invalid UTF-16: unpaired high surrogate", in: output)
                }
                index += 2
                value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(first) {
                throw failure("Invalid UTF-16: unpaired low surrogate", in: output)
            }
            append(value, to: &output)
        }
        guard index == bytes.count else { throw failure("Invalid UTF-16: truncated code unit", in: output) }
        return output
    }

    private static func transcodeUTF32(_ bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index + 3 < bytes.count {
            let value = bigEndian
                ? UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
                : UInt32(bytes[index + 3]) << 24 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index])
            guard value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else {
                throw failure("Invalid UTF-32: not a Unicode scalar value", in: output)
            }
            append(value, to: &output)
            index += 4
        }
        guard index == bytes.count else { throw failure("Invalid UTF-32: truncated code unit", in: output) }
        return output
    }

    /// Appends a scalar value already checked to be one.
    private static func append(_ value: UInt32, to output: inout [UInt8]) {
        switch value {
        case 0..<0x80:
            output.append(UInt8(value))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | value >> 6))
            output.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | value >> 12))
            output.append(UInt8(0x80 | value >> 6 & 0x3F))
            output.append(UInt8(0x80 | value & 0x3F))
        default:
            output.append(UInt8(0xF0 | value >> 18))
            output.append(UInt8(0x80 | value >> 12 & 0x3F))
            output.append(UInt8(0x80 | value >> 6 & 0x3F))
            output.append(UInt8(0x80 | value & 0x3F))
        }
    }

    private static func failure(_ message: String, in output: [UInt8]) -> JSONParsingError {
        output.withUnsafeBufferPointer { JSONParsingError(message, at: output.count, in: $0) }
    }
}
