import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFRequestSerialization

@Suite("HTTPRequestSerializer.Settings: the settings as one value")
struct SerializerSettingsTests {
    @Test func defaultsAreAFNetworkings() {
        let settings = HTTPRequestSerializer().settings
        #expect(settings.stringEncoding == .utf8)
        #expect(settings.httpMethodsEncodingParametersInURI == ["GET", "HEAD", "DELETE"])
        #expect(settings.queryStringSerialization == nil)
        #expect(settings.timeoutInterval == nil)
        #expect(settings.cachePolicy == nil)
    }

    @Test func methodsAreStoredUpperCasedThroughTheValueAndTheName() {
        var settings = HTTPRequestSerializer.Settings()
        settings.httpMethodsEncodingParametersInURI = ["get", "Purge"]
        #expect(settings.httpMethodsEncodingParametersInURI == ["GET", "PURGE"])
        let serializer = HTTPRequestSerializer()
        serializer.httpMethodsEncodingParametersInURI = ["options"]
        #expect(serializer.settings.httpMethodsEncodingParametersInURI == ["OPTIONS"])
    }

    @Test func aWholeValueChangesTheRequestsAnotherSerializerBuilds() throws {
        let source = HTTPRequestSerializer()
        source.updateSettings { settings in
            settings.timeoutInterval = 7
            settings.cachePolicy = .reloadIgnoringLocalCacheData
            settings.httpMethodsEncodingParametersInURI = ["GET", "POST"]
        }
        let target = HTTPRequestSerializer()
        let before = try target.request(method: "POST", urlString: "http://example.com/p", parameters: ["a": 1])
        #expect(before.timeoutInterval == 60)
        #expect(before.httpBody == Data("a=1".utf8))
        target.settings = source.settings
        let after = try target.request(method: "POST", urlString: "http://example.com/p", parameters: ["a": 1])
        #expect(after.timeoutInterval == 7)
        #expect(after.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(after.url?.absoluteString == "http://example.com/p?a=1")
        #expect(after.httpBody == nil)
        #expect(target.timeoutInterval == 7)
    }

    @Test func updatesFromManyThreadsAreNotLost() async {
        let serializer = HTTPRequestSerializer()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1000 {
                group.addTask { serializer.updateSettings { _ = $0.httpMethodsEncodingParametersInURI.insert("M\(index)") } }
            }
        }
        #expect(serializer.httpMethodsEncodingParametersInURI.count == 1003)
    }
}
