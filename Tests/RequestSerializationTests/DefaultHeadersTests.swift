import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFRequestSerialization

@Suite("Default headers, request properties, errors")
struct DefaultHeadersTests {
    @Test func acceptLanguageStopsAfterHalfQuality() {
        #expect(HTTPRequestSerializer.acceptLanguage(forPreferredLanguages: ["en", "fr"]) == "en;q=1, fr;q=0.9")
        let many = ["a", "b", "c", "d", "e", "f", "g", "h"]
        #expect(HTTPRequestSerializer.acceptLanguage(forPreferredLanguages: many)
            == "a;q=1, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5")
        let serializer = HTTPRequestSerializer(preferredLanguages: ["de-CH", "de"])
        #expect(serializer.value(forHTTPHeaderField: "Accept-Language") == "de-CH;q=1, de;q=0.9")
    }

    @Test func userAgentIsConfigurableAndASCII() throws {
        let serializer = HTTPRequestSerializer(applicationName: "Demo", applicationVersion: "2.1")
        let agent = try #require(serializer.value(forHTTPHeaderField: "User-Agent"))
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #expect(agent == "Demo/2.1 (Linux; \(version.majorVersion).\(version.minorVersion).\(version.patchVersion))")
        serializer.setUserAgent(applicationName: "Café 日本", applicationVersion: "1")
        let ascii = try #require(serializer.value(forHTTPHeaderField: "User-Agent"))
        #expect(ascii.hasPrefix("Cafe ri ben/1 (Linux; "))
        #expect(ascii.utf8.allSatisfy { $0 < 0x80 })
    }

    @Test func defaultHeadersApplyOnlyWhereMissing() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setValue("default", forHTTPHeaderField: "X-Token")
        serializer.setValue("text/plain", forHTTPHeaderField: "Accept")
        var request = URLRequest(url: URL(string: "http://example.com")!)
        request.setValue("mine", forHTTPHeaderField: "x-token")
        let serialized = try serializer.request(bySerializing: request, withParameters: nil)
        #expect(serialized.value(forHTTPHeaderField: "X-Token") == "mine")
        #expect(serialized.value(forHTTPHeaderField: "Accept") == "text/plain")
        #expect(serialized.url?.absoluteString == "http://example.com")
    }

    @Test func authorizationHeader() {
        let serializer = HTTPRequestSerializer()
        serializer.setAuthorizationHeaderField(username: "user", password: "password")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic dXNlcjpwYXNzd29yZA==")
        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func mirroredPropertiesReadAsURLRequestDefaultsUntilSet() throws {
        let serializer = HTTPRequestSerializer()
        #expect(serializer.timeoutInterval == 60)
        #expect(serializer.cachePolicy == .useProtocolCachePolicy)
        #expect(serializer.allowsCellularAccess == true)
        #expect(serializer.httpShouldHandleCookies == true)
        serializer.timeoutInterval = 5
        serializer.cachePolicy = .reloadIgnoringLocalCacheData
        serializer.httpShouldHandleCookies = false
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: nil)
        #expect(request.timeoutInterval == 5)
        #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(request.httpShouldHandleCookies == false)
        #expect(request.httpMethod == "GET")
    }

    @Test func customContentTypeIsKept() throws {
        var request = URLRequest(url: URL(string: "http://example.com")!)
        request.httpMethod = "POST"
        request.setValue("text/x-custom", forHTTPHeaderField: "Content-Type")
        let serialized = try HTTPRequestSerializer().request(bySerializing: request, withParameters: ["a": "b"])
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "text/x-custom")
        #expect(serialized.httpBody == Data("a=b".utf8))
    }

    @Test func nonEncodableBodyTextIsATypedError() throws {
        let serializer = HTTPRequestSerializer()
        serializer.stringEncoding = .ascii
        serializer.setQueryStringSerialization { _, _ in "name=Zoë" }
        let error = try #require(throws: RequestSerializationError.self) {
            try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["name": "Zoë"])
        }
        #expect(error.reason == .stringNotEncodable(.ascii))
        let bridged = error as NSError
        #expect(bridged.domain == "com.alamofire.error.serialization.request")
        #expect(bridged.code == NSURLErrorCannotDecodeContentData)
        let failing = try #require(bridged.userInfo[NetworkingOperationFailingURLRequestErrorKey] as? URLRequest)
        #expect(failing.url?.absoluteString == "http://example.com")
    }

    @Test func invalidURLStringIsBadURL() throws {
        let error = try #require(throws: URLError.self) {
            try HTTPRequestSerializer().request(method: "GET", urlString: "http://exa mple.com", parameters: nil)
        }
        #expect(error.code == .badURL)
    }

    @Test func encodableParameters() throws {
        struct Query: Encodable { let page: Int; let tags: [String]; let name: String? }
        let serializer = HTTPRequestSerializer()
        let request = try serializer.request(method: "GET", urlString: "http://example.com",
                                             encodableParameters: Query(page: 2, tags: ["a", "b"], name: nil))
        #expect(request.url?.query == "page=2&tags%5B%5D=a&tags%5B%5D=b")
        let nan = try #require(throws: RequestSerializationError.self) {
            try serializer.request(method: "GET", urlString: "http://example.com", encodableParameters: ["x": Double.nan])
        }
        #expect(nan.reason == .unsupportedParameters)
    }
}
