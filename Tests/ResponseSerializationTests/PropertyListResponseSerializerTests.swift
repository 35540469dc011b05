import AFProtocols
import Foundation
import Testing
@testable import AFResponseSerialization

/// AFPropertyListResponseSerializerTests.
@Suite struct PropertyListResponseSerializerTests {
    let serializer = PropertyListResponseSerializer()
    static let plist = utf8("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>name</key><string>AFNetworking</string>
        <key>count</key><integer>3</integer>
        <key>ratio</key><real>0.5</real>
        <key>ok</key><true/>
        <key>list</key><array><string>a</string><integer>1</integer></array>
        <key>blob</key><data>AAEC</data>
        </dict></plist>
        """)

    @Test func acceptsThePropertyListContentType() {
        let result = serializer.validateResponse(httpResponse(contentType: "application/x-plist"), data: Self.plist)
        #expect(result.isValid)
        #expect(result.error == nil)
    }

    @Test func doesNotAcceptNonStandardContentType() throws {
        let result = serializer.validateResponse(httpResponse(contentType: "nonstandard/plist"), data: Self.plist)
        #expect(try #require(result.error).localizedDescription == "Request failed: unacceptable content-type: nonstandard/plist")
    }

    @Test func handles204() {
        let result = serializer.responseObject(for: httpResponse(status: 204, contentType: "application/x-plist"), data: nil)
        #expect(result.object == nil)
        #expect(result.error == nil)
    }

    @Test func decodesAPropertyList() throws {
        let result = serializer.responseObject(for: httpResponse(contentType: "application/x-plist"), data: Self.plist)
        #expect(result.error == nil)
        #expect(result.object as? ParameterValue == [
            "name": "AFNetworking", "count": 3, "ratio": 0.5, "ok": true, "list": ["a", 1], "blob": "AAEC",
        ])
    }

    @Test func returnsErrorForInvalidPropertyList() throws {
        let result = serializer.responseObject(for: httpResponse(contentType: "application/x-plist"), data: utf8("<plist><dict>"))
        #expect(result.object == nil)
        let error = try #require(result.error as NSError?)
        #expect(error.domain == "com.alamofire.error.serialization.response")
        #expect(error.code == -1016)
    }

    @Test func canBeCopied() {
        var original = serializer
        original.format = .binary
        let copy = original
        original.format = .openStep
        #expect(copy.format == .binary)
        #expect(copy.readOptions == serializer.readOptions)
        #expect(serializer.format == .xml)
    }

    @Test func canBeArchivedAndUnarchived() throws {
        var original = serializer
        original.readOptions = .mutableContainers
        let decoded = try JSONDecoder().decode(PropertyListResponseSerializer.self, from: JSONEncoder().encode(original))
        #expect(decoded == original)
        #expect(decoded.format == .xml)
        #expect(decoded.readOptions == .mutableContainers)
        #expect(decoded.acceptableContentTypes == ["application/x-plist"])
    }
}
