/// A request URL's scheme, read from its absolute string (the string the URL keeps, which libcurl is
/// given too): Foundation's `scheme` getter parses the URL again, about 560 instructions a request with
/// the lowercasing, on the engine thread.
enum RequestScheme {
    /// The scheme a URL's absolute string begins with, lowercased; nil when it begins with none (RFC 3986:
    /// a letter, then letters, digits, "+", "-" or ".", up to the first ":"), as Foundation reads it.
    static func lowercased(of absoluteString: String) -> String? {
        var string = absoluteString
        return string.withUTF8 { bytes -> String? in
            var length = 0
            var hasUppercase = false
            while length < bytes.count, bytes[length] != UInt8(ascii: ":") {
                let byte = bytes[length]
                let isUppercase = byte >= 0x41 && byte <= 0x5A
                let isLetter = isUppercase || (byte >= 0x61 && byte <= 0x7A)
                let isOther = (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                guard isLetter || (length > 0 && isOther) else { return nil }
                hasUppercase = hasUppercase || isUppercase
                length += 1
            }
            guard length < bytes.count, length > 0 else { return nil }
            // Nearly every request's scheme is one of these: a literal, nothing built.
            if !hasUppercase && length >= 4 && bytes[0] == UInt8(ascii: "h") && bytes[1] == UInt8(ascii: "t")
                && bytes[2] == UInt8(ascii: "t") && bytes[3] == UInt8(ascii: "p") {
                if length == 4 { return "http" }
                if length == 5 && bytes[4] == UInt8(ascii: "s") { return "https" }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<length]), as: UTF8.self).lowercased()
        }
    }
}
