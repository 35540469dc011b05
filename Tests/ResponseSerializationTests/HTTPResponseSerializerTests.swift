import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFResponseSerialization

/// AFHTTPResponseSerializationTests, plus the exact error AFNetworking builds.
@Suite struct HTTPResponseSerializerTests {
    let serializer = HTTPResponseSerializer()

    @Test func handlesAll2XXCodes() {
        for status in 200..<300 {
            #expect(serializer.acceptableStatusCodes?.contains(status) == true)
            let result = serializer.validateResponse(httpResponse(status: status, contentType: "text/html"), data: utf8("text"))
            #expect(result.isValid, "status \(status)")
            #expect(result.error == nil, "status \(status)")
        }
    }

    @Test func succeedsWith205WithNoContentTypeAndNoData() {
        var serializer = serializer
        serializer.acceptableContentTypes = ["text/html"]
        let response = httpResponse(status: 205)
        #expect(serializer.acceptableStatusCodes?.contains(205) == true)
        let empty = serializer.validateResponse(response, data: nil)
        #expect(empty.isValid)
        #expect(empty.error == nil)
        #expect(!serializer.validateResponse(response, data: utf8("test")).isValid)
    }

    @Test func failsWith205WithNoContentTypeAndData() {
        var serializer = serializer
        serializer.acceptableContentTypes = ["text/html"]
        let result = serializer.validateResponse(httpResponse(status: 205), data: utf8("test"))
        #expect(!result.isValid)
        #expect(result.error != nil)
    }

    @Test func failsAll4XX5XXCodes() {
        for status in 400..<600 {
            #expect(serializer.acceptableStatusCodes?.contains(status) == false)
            let result = serializer.validateResponse(httpResponse(status: status, contentType: "text/html"), data: utf8("text"))
            #expect(result.error != nil, "status \(status)")
        }
    }

    @Test func responseIsValidated() {
        let response = httpResponse(status: 200, contentType: "text/html", url: URL(string: "http://test.com")!)
        #expect(serializer.validateResponse(response, data: utf8("text")).isValid)
    }

    @Test func canBeCopied() {
        var original = serializer
        original.acceptableContentTypes = ["text/html"]
        let copy = original
        original.acceptableStatusCodes = IndexSet(integer: 100)
        #expect(copy.acceptableContentTypes == ["text/html"])
        #expect(copy.acceptableStatusCodes == IndexSet(integersIn: 200..<300))
        #expect(copy.acceptableStatusCodes?.count == 100)
    }

    @Test func supportsCoding() throws {
        var original = serializer
        original.acceptableStatusCodes = IndexSet([200, 304])
        original.acceptableContentTypes = ["text/plain"]
        let decoded = try JSONDecoder().decode(HTTPResponseSerializer.self, from: JSONEncoder().encode(original))
        #expect(decoded == original)
        #expect(decoded.acceptableStatusCodes == IndexSet([200, 304]))
        #expect(decoded.acceptableContentTypes == ["text/plain"])
    }

    @Test func returnsTheDataWithTheStatusError() throws {
        let data = utf8("missing")
        let result = serializer.responseObject(for: httpResponse(status: 404, contentType: "text/plain"), data: data)
        #expect(result.object as? Data == data)
        let error = try #require(result.error as NSError?)
        #expect(error.domain == "com.alamofire.error.serialization.response")
        #expect(error.code == -1011)
        #expect(error.localizedDescription == "Request failed: not found (404)")
        #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == testURL)
        #expect(error.userInfo["com.alamofire.serialization.response.error.data"] as? Data == data)
        #expect((error.userInfo["com.alamofire.serialization.response.error.response"] as? HTTPURLResponse)?.statusCode == 404)
    }

    @Test func chainsTheContentTypeErrorUnderTheStatusError() throws {
        var serializer = serializer
        serializer.acceptableContentTypes = ["application/json"]
        let result = serializer.responseObject(for: httpResponse(status: 500, contentType: "text/html"), data: utf8("oops"))
        let error = try #require(result.error as NSError?)
        #expect(error.code == -1011)
        #expect(error.localizedDescription == "Request failed: internal server error (500)")
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == "com.alamofire.error.serialization.response")
        #expect(underlying.code == -1016)
        #expect(underlying.localizedDescription == "Request failed: unacceptable content-type: text/html")
    }
}
