import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFRequestSerialization

/// AFNetworking's AFHTTPRequestSerializationTests, same inputs and expected values (the multipart MIME
/// test lives in AFMultipartTests, next to the multipart builder).
@Suite("HTTPRequestSerializer (AFHTTPRequestSerializationTests)")
struct HTTPRequestSerializerTests {
    let serializer = HTTPRequestSerializer()
    let example = URL(string: "http://example.com")!

    private func post() -> URLRequest {
        var request = URLRequest(url: example)
        request.httpMethod = "POST"
        return request
    }

    @Test func serializesPOSTRequestsProperly() throws {
        let serialized = try serializer.request(bySerializing: post(), withParameters: ["key": "value"])
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(serialized.httpBody == Data("key=value".utf8))
    }

    @Test func serializesPOSTRequestsProperlyWhenNoParameterIsProvided() throws {
        let serialized = try serializer.request(bySerializing: post(), withParameters: nil)
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(serialized.httpBody == Data())
    }

    @Test func serializesQueryParametersCorrectly() throws {
        let serialized = try serializer.request(bySerializing: URLRequest(url: example), withParameters: ["key": "value"])
        #expect(serialized.url?.query == "key=value")
    }

    @Test func emptyDictionaryParametersAreProperlyEncoded() throws {
        let serialized = try serializer.request(bySerializing: URLRequest(url: example), withParameters: [:])
        #expect(serialized.url?.absoluteString == "http://example.com")
    }

    @Test func serializesURLEncodableQueryParametersCorrectly() throws {
        let serialized = try serializer.request(bySerializing: URLRequest(url: example),
                                                withParameters: ["key": " :#[]@!$&'()*+,;=/?"])
        #expect(serialized.url?.query == "key=%20%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D/?")
    }

    @Test func serializesURLEncodedQueryParametersCorrectly() throws {
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

    @Test func valueForHTTPHeaderFieldReturnsSetValue() {
        serializer.setValue("Actual Value", forHTTPHeaderField: "Set-Header")
        #expect(serializer.value(forHTTPHeaderField: "Set-Header") == "Actual Value")
        #expect(serializer.value(forHTTPHeaderField: "set-header") == "Actual Value")
    }

    @Test func valueForHTTPHeaderFieldReturnsNilForUnsetHeader() {
        #expect(serializer.value(forHTTPHeaderField: "Unset-Header") == nil)
    }

    @Test func queryStringSerializationCanFailWithError() {
        struct TestDomainError: Error, Equatable { let code: Int }
        serializer.setQueryStringSerialization { _, _ in throw TestDomainError(code: 0) }
        #expect(throws: TestDomainError(code: 0)) {
            try serializer.request(method: "GET", urlString: "url", parameters: [:])
        }
    }

    @Test func httpHeaderValueCanBeRemoved() {
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

    @Test func emojiIsProperlyEncoded() throws {
        // Odd length first so AF's 50-character batches would cross a cluster; we escape bytes whole.
        var parameter = "!"
        while parameter.utf16.count < 50 { parameter += "👴🏿👷🏻👮🏽" }
        let request = try serializer.request(method: "GET", urlString: "http://test.com", parameters: ["test": .string(parameter)])
        let cluster = "%F0%9F%91%B4%F0%9F%8F%BF%F0%9F%91%B7%F0%9F%8F%BB%F0%9F%91%AE%F0%9F%8F%BD"
        #expect(request.url?.query == "test=%21" + String(repeating: cluster, count: 5))
    }
}
