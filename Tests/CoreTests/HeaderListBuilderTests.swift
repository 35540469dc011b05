import CCurl
import Testing
@testable import AFCore

@Suite("Engine: the request's header list")
struct HeaderListBuilderTests {
    /// The list's lines, in order; frees it.
    private func lines(of builder: HeaderListBuilder) -> [String] {
        var lines: [String] = []
        var node = builder.list
        while let current = node {
            lines.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        curl_slist_free_all(builder.list)
        return lines
    }

    @Test func fieldsLinesAndEmptyValuesAreSpelledAsLibcurlReadsThem() {
        var builder = HeaderListBuilder()
        #expect(builder.list == nil)
        builder.addField(name: "Accept", value: "application/json")
        builder.addField(name: "X-Empty", value: "")
        builder.addLine("Cookie: ", "a=1; b=2")
        builder.addLine("Expect:")
        #expect(lines(of: builder) == ["Accept: application/json", "X-Empty;", "Cookie: a=1; b=2", "Expect:"])
    }

    @Test func longShortAndNonASCIILinesKeepTheirExactBytes() {
        var builder = HeaderListBuilder()
        let long = String(repeating: "v", count: 5_000)  // past what temporary memory takes from the stack
        builder.addField(name: "X-Long", value: long)
        builder.addField(name: "X-Short", value: "s")
        builder.addField(name: "X-Ünïcode", value: "välue ✓")
        #expect(lines(of: builder) == ["X-Long: " + long, "X-Short: s", "X-Ünïcode: välue ✓"])
    }
}
