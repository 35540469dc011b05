@testable import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The completion notification's userInfo, made from templates, holds exactly what a dictionary built key
/// by key holds, for every set of keys.
@Suite("Completion notification: userInfo")
struct NetworkingTaskDidCompleteUserInfoTests {
    private struct Failure: Error, Equatable { let code: Int }
    /// Stands for AFCore's `SessionTaskMetrics`.
    private struct Metrics: Equatable { let redirectCount: Int }

    @Test func everySetOfValuesGivesTheKeysAndValuesOfADictionaryBuiltKeyByKey() throws {
        let serializer = HTTPResponseSerializer()
        let data = Data("body".utf8)
        let error = Failure(code: 7)
        let path = URL(fileURLWithPath: "/downloads/file.bin")
        let metrics = Metrics(redirectCount: 2)
        for mask in 0..<32 {
            let has = { (bit: Int) in mask & (1 << bit) != 0 }
            let info = NetworkingTaskDidCompleteUserInfo.make(
                responseSerializer: serializer, responseData: has(0) ? data : nil, error: has(1) ? error : nil,
                assetPath: has(2) ? path : nil, serializedResponse: has(3) ? "object" : nil,
                metrics: has(4) ? metrics : nil)
            var expectedKeys: Set<String> = [NetworkingTaskDidCompleteKey.responseSerializer]
            if has(0) { expectedKeys.insert(NetworkingTaskDidCompleteKey.responseData) }
            if has(1) { expectedKeys.insert(NetworkingTaskDidCompleteKey.error) }
            if has(2) { expectedKeys.insert(NetworkingTaskDidCompleteKey.assetPath) }
            if has(3) { expectedKeys.insert(NetworkingTaskDidCompleteKey.serializedResponse) }
            if has(4) { expectedKeys.insert(NetworkingTaskDidCompleteKey.sessionTaskMetrics) }
            #expect(Set(info.keys.compactMap { $0.base as? String }) == expectedKeys, "mask \(mask)")
            #expect(info.count == expectedKeys.count, "mask \(mask)")
            #expect(info[NetworkingTaskDidCompleteKey.responseSerializer] is HTTPResponseSerializer)
            #expect(info[NetworkingTaskDidCompleteKey.responseData] as? Data == (has(0) ? data : nil))
            #expect(info[NetworkingTaskDidCompleteKey.error] as? Failure == (has(1) ? error : nil))
            #expect(info[NetworkingTaskDidCompleteKey.assetPath] as? URL == (has(2) ? path : nil))
            #expect(info[NetworkingTaskDidCompleteKey.serializedResponse] as? String == (has(3) ? "object" : nil))
            #expect(info[NetworkingTaskDidCompleteKey.sessionTaskMetrics] as? Metrics == (has(4) ? metrics : nil))
            // What the notification's receivers see: the keys as Strings.
            let bridged = try #require(info as? [String: Any])
            #expect(Set(bridged.keys) == expectedKeys)
        }
    }

    @Test func aDictionaryMadeTwiceIsTwoDictionaries() {
        let first = NetworkingTaskDidCompleteUserInfo.make(responseSerializer: HTTPResponseSerializer(), responseData: Data([1]), error: nil,
                                            assetPath: nil, serializedResponse: nil, metrics: nil)
        var second = NetworkingTaskDidCompleteUserInfo.make(responseSerializer: HTTPResponseSerializer(), responseData: Data([2]), error: nil,
                                             assetPath: nil, serializedResponse: nil, metrics: nil)
        second[NetworkingTaskDidCompleteKey.error] = Failure(code: 1)
        #expect(first[NetworkingTaskDidCompleteKey.responseData] as? Data == Data([1]))
        #expect(second[NetworkingTaskDidCompleteKey.responseData] as? Data == Data([2]))
        #expect(first.count == 2)
        #expect(second.count == 3)
    }
}
