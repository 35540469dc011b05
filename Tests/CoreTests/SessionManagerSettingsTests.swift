import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

@Suite("URLSessionManager.Settings: the settings as one value")
struct SessionManagerSettingsTests {
    @Test func defaultsAreAFNetworkingsAndTheInitializersSerializer() {
        let serializer = HTTPResponseSerializer(validation: HTTPResponseValidation(acceptableStatusCodes: IndexSet([201])))
        let manager = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: serializer)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let settings = manager.settings
        #expect((settings.responseSerializer as? HTTPResponseSerializer)?.validation.acceptableStatusCodes == IndexSet([201]))
        #expect(settings.maximumRedirects == 16)
        #expect(settings.httpVersion == .automatic)
        #expect(settings.transferLimits == TransferLimits())
        #expect(settings.completionQueue == nil)
        #expect(settings.completionGroup == nil)
        #expect(settings.reachabilityManager == nil)
    }

    /// Without the umbrella, a manager needs no serializer: AFHTTPResponseSerializer's behaviour is the default.
    @Test func aCoreManagerDefaultsToTheHTTPResponseSerializer() {
        let manager = URLSessionManager(sessionConfiguration: .ephemeral)
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(manager.responseSerializer is HTTPResponseSerializer)
        let plain = URLSessionManager()
        defer { plain.invalidateSession(cancelingTasks: true) }
        #expect(plain.responseSerializer is HTTPResponseSerializer)
    }

    @Test func theAFNetworkingNamesForwardToTheValue() {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.maximumRedirects = -3
        #expect(manager.settings.maximumRedirects == 0)
        manager.settings.maximumRedirects = 5
        #expect(manager.maximumRedirects == 5)
        manager.transferLimits = TransferLimits(maximumBodySize: 10)
        #expect(manager.settings.transferLimits.maximumBodySize == 10)
        manager.updateSettings { $0.httpVersion = .http1_1 }
        #expect(manager.httpVersion == .http1_1)
    }

    @Test func aWholeValueMovesToAnotherManager() {
        let source = makeManager()
        let target = makeManager()
        defer {
            source.invalidateSession(cancelingTasks: true)
            target.invalidateSession(cancelingTasks: true)
        }
        let queue = DispatchQueue(label: "settings.test")
        source.updateSettings { settings in
            settings.completionQueue = queue
            settings.maximumRedirects = 2
            settings.transferLimits = TransferLimits(maximumHeaderSize: 1024)
        }
        target.settings = source.settings
        #expect(target.completionQueue === queue)
        #expect(target.maximumRedirects == 2)
        #expect(target.transferLimits.maximumHeaderSize == 1024)
    }

    @Test func updatesFromManyThreadsAreNotLost() async {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1000 {
                group.addTask { manager.updateSettings { $0.maximumRedirects += 1 } }
            }
        }
        #expect(manager.maximumRedirects == 1016)
    }

    @Test func theEngineUsesTheValueForTransfersStartedAfterwards() async {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.updateSettings { $0.maximumRedirects = 0 }
        let refused = await complete(manager, URLRequest(url: sharedServer.url("/redirect")))
        #expect(refused.urlErrorCode == -1007)
        manager.updateSettings { $0.maximumRedirects = 1 }
        let followed = await complete(manager, URLRequest(url: sharedServer.url("/redirect")))
        #expect(followed.response?.statusCode == 200)
    }
}
