import AFProtocols
import Testing

@Suite("HTTPFieldSyntax: RFC 9110 tokens and field values")
struct HTTPFieldSyntaxTests {
    @Test func tokens() {
        for token in ["GET", "PROPFIND", "X-Custom_1", "!#$%&'*+-.^_`|~", "a"] {
            #expect(HTTPFieldSyntax.isToken(token), "\(token)")
        }
        for bad in ["", "GET /", "X:Y", "X\r\nY", "X\0", "Ü", "a\"b", "(x)", "a,b", "a/b", "a;b", "a=b", "a@b", "a[b]",
                    "a{b}", "a\\b", "a?b", "a<b>", "tab\t"] {
            #expect(!HTTPFieldSyntax.isToken(bad), "\(bad.debugDescription)")
        }
    }

    @Test func fieldValues() {
        for value in ["", "plain", "with spaces and\ttab", "ünïcödé", "quoted \"x\", y=1; z"] {
            #expect(HTTPFieldSyntax.isFieldValue(value), "\(value)")
        }
        for bad in ["a\rb", "a\nb", "a\r\nX-Injected: 1", "a\0b", "\n"] {
            #expect(!HTTPFieldSyntax.isFieldValue(bad), "\(bad.debugDescription)")
        }
    }
}
