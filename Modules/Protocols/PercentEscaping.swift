/// Percent-escapes `string` for a query-string key or value (AFPercentEscapedStringFromString).
///
/// Only `A-Z a-z 0-9 - . _ ~ / ?` stay as they are: the URL query's allowed characters minus the
/// general delimiters `:#[]@` and the sub-delimiters `!$&'()*+,;=` (RFC 3986 section 3.4 lets `/` and
/// `?` stand unescaped in a query). Every other byte of the string's UTF-8 form becomes `%XX` with
/// upper-case hex, so a space is `%20`, `%` is always `%25`, and non-ASCII characters become their
/// UTF-8 bytes. Escaping works byte by byte on whole strings, so a grapheme cluster (an emoji with a
/// skin-tone modifier, say) is never split the way a fixed-size UTF-16 batch could split it.
///
/// Threading: a pure function; call it from any thread.
public func percentEscapedString(_ string: String) -> String {
    var escaped: [UInt8] = []
    escaped.reserveCapacity(string.utf8.count)
    for byte in string.utf8 {
        if QueryEscaping.isUnescaped[Int(byte)] {
            escaped.append(byte)
        } else {
            escaped.append(UInt8(ascii: "%"))
            escaped.append(QueryEscaping.hexDigits[Int(byte >> 4)])
            escaped.append(QueryEscaping.hexDigits[Int(byte & 0x0F)])
        }
    }
    return String(decoding: escaped, as: UTF8.self)
}

/// The tables behind ``percentEscapedString(_:)``: a byte lookup keeps escaping linear and branch-light,
/// which the 100,000-pair benchmark measures.
enum QueryEscaping {
    static let isUnescaped: [Bool] = (0...255).map { value in
        switch UInt8(value) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
