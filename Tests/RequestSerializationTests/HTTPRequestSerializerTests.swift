import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFRequestSerialization
import AFCore

/// The two form serializers that carry AFNetworking's rules: AFRequestSerialization's and AFCore's minimal
/// default. AF's expectations below that both must meet run against each.
enum SerializerPath: String, CaseIterable, CustomTestStringConvertible {
    case requestSerialization = "HTTPRequestSerializer"
    case coreDefault = "FormURLEncodingRequestSerializer"

    func make() -> any HTTPRequestSerializing {
        switch self {
        case .requestSerialization: HTTPRequestSerializer()
        case .coreDefault: FormURLEncodingRequestSerializer()
        }
    }

    var testDescription: String { rawValue }
}

/// AFNetworking's AFHTTPRequestSerializationTests, same inputs and expected values (the multipart MIME
/// test lives in AFMultipartTests, next to the multipart builder); the rules both form serializers share
/// run against both (``SerializerPath``).
@Suite("HTTPRequestSerializer (AFHTTPRequestSerializationTests)")
struct HTTPRequestSerializerTests {
    let serializer = HTTPRequestSerializer()
    let example = URL(string: "http://example.com")!

    private func post() -> URLRequest {
        var request = URLRequest(url: example)
        request.httpMethod = "POST"
        return request
    }

    @Test(arguments: SerializerPath.allCases)
    func serializesPOSTRequestsProperly(path: SerializerPath) throws {
        let serializer = path.make()
        let serialized = try serializer.request(bySerializing: post(), withParameters: ["key": "value"])
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(serialized.httpBody == Data("key=value".utf8))
    }

    @Test(arguments: SerializerPath.allCases)
    func serializesPOSTRequestsProperlyWhenNoParameterIsProvided(path: SerializerPath) throws {
        let serializer = path.make()
        let serialized = try serializer.request(bySerializing: post(), withParameters: nil)
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(serialized.httpBody == Data())
    }

    @Test(arguments: SerializerPath.allCases)
    func serializesQueryParametersCorrectly(path: SerializerPath) throws {
        let serializer = path.make()
        let serialized = try serializer.request(bySerializing: URLRequest(url: example), withParameters: ["key": "value"])
        #expect(serialized.url?.query == "key=value")
    }

    @Test(arguments: SerializerPath.allCases)
    func emptyDictionaryParametersAreProperlyEncoded(path: SerializerPath) throws {
        let serializer = path.make()
        let serialized = try serializer.request(bySerializing: URLRequest(url: example), withParameters: [:])
        #expect(serialized.url?.absoluteString == "http://example.com")
    }

    @Test(arguments: SerializerPath.allCases)
    func serializesURLEncodableQueryParametersCorrectly(path: SerializerPath) throws {
        let serializer = path.make()
        let serialized = try serializer.request(bySerializing: URLRequest(url: example),
                                                withParameters: ["key": " :#[]@!$&'()*+,;=/?"])
        #expect(serialized.url?.query == "key=%20%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D/?")
    }

    @Test(arguments: SerializerPath.allCases)
    func serializesURLEncodedQueryParametersCorrectly(path: SerializerPath) throws {
        let serializer = path.make()
        let serialized = try serializer.request(bySerializing: URLRequest(url: example),
                                                withParameters: ["key": "%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%2F"])
        #expect(serialized.url?.query
            == "key=%2520%2521%2522%2523%2524%2525%2526%2527%2528%2529%252A%252B%252C%252F")
    }

    @Test func serializesQueryParametersCorrectlyFromQuerySerializationBlock() throws {
        serializer.setQueryStringSerialization { _, parameters in
            parameters.sortedEntries.map { "\($0.key)**\($0.value.scalarDescription ?? "")" }.joined()
        }
        let serialized = try serializer.request(bySerializing: URLRequest(url: example), withParameters: ["key": "value"])
        #expect(serialized.url?.query == "key**value")
    }

    @Test(arguments: SerializerPath.allCases)
    func valueForHTTPHeaderFieldReturnsSetValue(path: SerializerPath) {
        let serializer = path.make()
        serializer.setValue("Actual Value", forHTTPHeaderField: "Set-Header")
        #expect(serializer.value(forHTTPHeaderField: "Set-Header") == "Actual Value")
        #expect(serializer.value(forHTTPHeaderField: "set-header") == "Actual Value")
    }

    @Test(arguments: SerializerPath.allCases)
    func valueForHTTPHeaderFieldReturnsNilForUnsetHeader(path: SerializerPath) {
        let serializer = path.make()
        #expect(serializer.value(forHTTPHeaderField: "Unset-Header") == nil)
    }

    @Test func queryStringSerializationCanFailWithError() {
        struct TestDomainError: Error, Equatable { let code: Int }
        serializer.setQueryStringSerialization { _, _ in throw TestDomainError(code: 0) }
        #expect(throws: TestDomainError(code: 0)) {
            try serializer.request(method: "GET", urlString: "url", parameters: [:])
        }
    }

    @Test(arguments: SerializerPath.allCases)
    func httpHeaderValueCanBeRemoved(path: SerializerPath) {
        let serializer = path.make()
        serializer.setValue("test", forHTTPHeaderField: "TestHeader")
        #expect(serializer.httpRequestHeaders["TestHeader"] == "test")
        serializer.setValue(nil, forHTTPHeaderField: "TestHeader")
        #expect(!serializer.httpRequestHeaders.keys.contains("TestHeader"))
    }

    @Test func httpHeaderValueCanBeSetFromMultipleThreadsWithoutCrashing() async {
        let serializer = self.serializer
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    let value = "\(Date(timeIntervalSince1970: TimeInterval(index)))"
                    serializer.setValue(value, forHTTPHeaderField: "FrequentlyUpdatedHeaderField")
                    _ = serializer.httpRequestHeaders
                }
            }
        }
        let last = serializer.value(forHTTPHeaderField: "FrequentlyUpdatedHeaderField")
        #expect(last?.hasPrefix("1970-01-01") == true)
    }

    @Test func queryStringFromParameters() {
        #expect(queryString(from: ["key": "value", "key1": "value&"]) == "key=value&key1=value%26")
    }

    @Test func percentEscapingString() {
        #expect(percentEscapedString(":#[]@!$&'()*+,;=?/") == "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D?/")
    }

    @Test(arguments: SerializerPath.allCases)
    func emojiIsProperlyEncoded(path: SerializerPath) throws {
        let serializer = path.make()
        // Odd length first so AF's 50-character batches would cross a cluster; we escape bytes whole.
        var parameter = "!"
        while parameter.utf16.count < 50 { parameter += "👴🏿👷🏻👮🏽" }
        let request = try serializer.request(method: "GET", urlString: "http://test.com", parameters: ["test": .string(parameter)])
        let cluster = "%F0%9F%91%B4%F0%9F%8F%BF%F0%9F%91%B7%F0%9F%8F%BB%F0%9F%91%AE%F0%9F%8F%BD"
        #expect(request.url?.query == "test=%21" + String(repeating: cluster, count: 5))
    }

    @Test(arguments: SerializerPath.allCases)
    func aQueryJoinsAnExistingQueryWithAnAmpersandBeforeTheFragment(path: SerializerPath) throws {
        let serializer = path.make()
        let withQuery = try serializer.request(method: "GET", urlString: "http://example.com/p?x=1#top",
                                               parameters: ["a": "b c"])
        #expect(withQuery.url?.absoluteString == "http://example.com/p?x=1&a=b%20c#top")
        let emptyQuery = try serializer.request(method: "DELETE", urlString: "http://example.com/p?", parameters: ["a": 1])
        #expect(emptyQuery.url?.absoluteString == "http://example.com/p?&a=1")
    }

    @Test(arguments: SerializerPath.allCases)
    func aStringThatIsNotAURLFailsWithBadURL(path: SerializerPath) {
        let error = #expect(throws: URLError.self) {
            try path.make().request(method: "GET", urlString: "http://exa mple.com/[", parameters: nil)
        }
        #expect(error?.code == .badURL)
        #expect(error?.localizedDescription == "http://exa mple.com/[ is not a valid URL.")
    }

    @Test(arguments: SerializerPath.allCases)
    func theBodyIsInTheSerializersStringEncoding(path: SerializerPath) throws {
        let serializer = path.make()
        switch serializer {
        case let requestSerializer as HTTPRequestSerializer: requestSerializer.stringEncoding = .utf16BigEndian
        case let core as FormURLEncodingRequestSerializer: core.stringEncoding = .utf16BigEndian
        default: Issue.record("unexpected serializer")
        }
        let body = try serializer.request(bySerializing: post(), withParameters: ["k": "é"]).httpBody
        #expect(body == "k=%C3%A9".data(using: .utf16BigEndian))
    }

    @Test func theSharedRuleRefusesABodyItsEncodingCannotHold() {
        // Percent-escaped queries are ASCII; a custom query serialization may produce anything.
        let error = #expect(throws: RequestSerializationError.self) {
            try FormURLEncoding.request(post(), carrying: "é", inURI: false, encoding: .ascii)
        }
        #expect(error?.reason == .stringNotEncodable(.ascii))
    }
}
