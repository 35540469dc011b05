import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFRequestSerialization

/// AFNetworking's AFJSONRequestSerializationTests, same inputs and expected values.
@Suite("JSONRequestSerializer (AFJSONRequestSerializationTests)")
struct JSONRequestSerializerTests {
    let serializer = JSONRequestSerializer()
    let baseURL = "http://localhost/"

    @Test func handlesParametersDictionary() throws {
        let request = try serializer.request(method: "POST", urlString: baseURL, parameters: ["key": "value"])
        #expect(String(decoding: try #require(request.httpBody), as: UTF8.self) == #"{"key":"value"}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func handlesParametersArray() throws {
        let request = try serializer.request(method: "POST", urlString: baseURL, parameters: [["key": "value"]])
        #expect(String(decoding: try #require(request.httpBody), as: UTF8.self) == #"[{"key":"value"}]"#)
    }

    /// AF passes a string holding a lone UTF-16 surrogate. A Swift `String` cannot hold one (Foundation
    /// replaces it with U+FFFD when bridging), so the invalid value here is the other one JSON has no
    /// form for: a non-finite number.
    @Test func handlesInvalidParameters() throws {
        let error = try #require(throws: RequestSerializationError.self) {
            try serializer.request(method: "POST", urlString: baseURL, parameters: ["key": .double(.infinity)])
        }
        #expect(error.reason == .invalidJSON)
    }

    @Test func errorsWithInvalidJSON() throws {
        let error = try #require(throws: RequestSerializationError.self) {
            try serializer.request(method: "POST", urlString: baseURL, parameters: ["key": .set(["value"])])
        }
        let bridged = error as NSError
        #expect(bridged.domain == URLRequestSerializationErrorDomain)
        #expect(bridged.code == NSURLErrorCannotDecodeContentData)
        #expect(bridged.localizedFailureReason == "The `parameters` argument is not valid JSON.")
        #expect(bridged.userInfo[NetworkingOperationFailingURLRequestErrorKey] is URLRequest)
    }

    @Test func nilParametersGiveNoBodyAndGETUsesTheQuery() throws {
        let post = try serializer.request(method: "POST", urlString: baseURL, parameters: nil)
        #expect(post.httpBody == nil)
        #expect(post.value(forHTTPHeaderField: "Content-Type") == nil)
        let get = try serializer.request(method: "GET", urlString: baseURL, parameters: ["a": [1, 2]])
        #expect(get.url?.query == "a%5B%5D=1&a%5B%5D=2")
        #expect(get.httpBody == nil)
    }

    @Test func writingOptionsApply() throws {
        serializer.writingOptions = [.sortedKeys]
        let request = try serializer.request(method: "PUT", urlString: baseURL, parameters: ["b": 1, "a": [true, nil]])
        #expect(String(decoding: try #require(request.httpBody), as: UTF8.self) == #"{"a":[true,null],"b":1}"#)
    }

    @Test func nanAndTopLevelScalarsAreInvalid() {
        for parameters: ParameterValue in [["x": .double(.nan)], "scalar"] {
            #expect(throws: RequestSerializationError.self) {
                try serializer.request(method: "POST", urlString: baseURL, parameters: parameters)
            }
        }
    }
}

/// AFNetworking's AFPropertyListRequestSerializerTests.
@Suite("PropertyListRequestSerializer (AFPropertyListRequestSerializerTests)")
struct PropertyListRequestSerializerTests {
    let serializer = PropertyListRequestSerializer()
    let baseURL = "http://localhost/"

    @Test func acceptsPlist() throws {
        let request = try serializer.request(method: "POST", urlString: baseURL, parameters: ["key": "value"])
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
        let body = try #require(request.httpBody)
        let decoded = try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: String]
        #expect(decoded == ["key": "value"])
        #expect(String(decoding: body, as: UTF8.self).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(String(decoding: body, as: UTF8.self).contains("<plist version=\"1.0\">"))
    }

    @Test func handlesInvalidPlist() throws {
        let request = URLRequest(url: URL(string: baseURL)!)
        var post = request
        post.httpMethod = "POST"
        let error = try #require(throws: RequestSerializationError.self) {
            try serializer.request(bySerializing: post, withFoundationParameters: [42: "value"] as NSDictionary)
        }
        #expect(error.reason == .unsupportedParameters)
        let nullError = try #require(throws: RequestSerializationError.self) {
            try serializer.request(bySerializing: post, withParameters: ["key": nil])
        }
        #expect(nullError.reason == .invalidPropertyList)
        #expect((nullError as NSError).code == NSURLErrorCannotDecodeContentData)
    }

    @Test func binaryFormat() throws {
        serializer.format = .binary
        let request = try serializer.request(method: "POST", urlString: baseURL, parameters: ["n": 1])
        #expect(try #require(request.httpBody).prefix(8) == Data("bplist00".utf8))
    }
}
