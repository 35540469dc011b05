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

@Suite("HTTPRequestOperationManager.Settings: the settings as one value")
struct OperationManagerSettingsTests {
    private func manager() -> HTTPRequestOperationManager {
        HTTPRequestOperationManager(baseURL: sharedServer.url("/"), requestSerializer: FormURLEncodingRequestSerializer(),
                                    responseSerializer: HTTPResponseSerializer())
    }

    @Test func operationsTakeTheValueAppliedToTheManager() {
        let source = manager()
        let queue = DispatchQueue(label: "operation.settings")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 9
        source.updateSettings { settings in
            settings.completionQueue = queue
            settings.shouldUseCredentialStorage = false
            settings.credential = URLCredential(user: "u", password: "p", persistence: .none)
            settings.sessionConfiguration = configuration
        }
        // A copy: changing the object afterwards changes nothing in the settings.
        configuration.timeoutIntervalForRequest = 1
        let target = manager()
        target.settings = source.settings
        #expect(target.completionQueue === queue)
        #expect(target.sessionConfiguration?.timeoutIntervalForRequest == 9)
        let operation = target.httpRequestOperation(with: URLRequest(url: sharedServer.url("/bytes/5")),
                                                    success: nil, failure: nil)
        #expect(operation.completionQueue === queue)
        #expect(operation.shouldUseCredentialStorage == false)
        #expect(operation.credential?.user == "u")
    }

    @Test func updatesFromManyThreadsAreNotLost() async {
        let manager = manager()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask {
                    manager.updateSettings { settings in
                        settings.shouldUseCredentialStorage.toggle()
                        if index == 0 { settings.credential = URLCredential(user: "first", password: "", persistence: .none) }
                    }
                }
            }
        }
        // 500 toggles of true: back to true only if none was lost.
        #expect(manager.shouldUseCredentialStorage == true)
        #expect(manager.credential?.user == "first")
    }
}
