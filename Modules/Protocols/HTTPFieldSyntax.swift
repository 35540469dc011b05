/// RFC 9110's syntax for what goes on a request's header lines: the one rule every module applies before
/// a method, a header field or a multipart part header is written, so none of them can forge a line.
///
/// Threading: pure functions; call them from any thread.
public enum HTTPFieldSyntax {
    /// Whether `text` is an RFC 9110 `token` (a method or a field name): one or more of the visible
    /// ASCII characters other than the delimiters `"(),/:;<=>?@[\]{}`.
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenCharacter)
    }

    /// Whether `text` may stand as a field value: anything but CR, LF and NUL (the bytes that end or cut
    /// a line on the wire). Other bytes, obs-text included, are the server's to judge.
    public static func isFieldValue(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// tchar: "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
    /// / DIGIT / ALPHA.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }
}
