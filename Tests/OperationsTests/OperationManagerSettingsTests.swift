import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFOperations
import AFCore
import LoopbackSupport


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

/// Decodes any body as its byte count (tells one serializer's object from another's).
private struct ByteCountSerializer: ResponseSerializing {
    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        SerializedResponse(object: data?.count ?? -1)
    }
}

@Suite("HTTPRequestOperation.Settings: the settings as one value")
struct OperationSettingsTests {
    @Test func aWholeValueMovesBetweenOperationsAndTheAFNamesForwardToIt() {
        let queue = DispatchQueue(label: "operation.settings.value")
        let group = DispatchGroup()
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("never-written.bin")
        let source = HTTPRequestOperation(request: URLRequest(url: sharedServer.url("/bytes/1")))
        source.updateSettings { settings in
            settings.completionQueue = queue
            settings.completionGroup = group
            settings.output = .file(target)
            settings.shouldUseCredentialStorage = false
            settings.credential = URLCredential(user: "u", password: "p", persistence: .none)
        }
        let copy = HTTPRequestOperation(request: URLRequest(url: sharedServer.url("/bytes/1")))
        #expect(copy.output == .memory)
        #expect(copy.shouldUseCredentialStorage)
        copy.settings = source.settings
        #expect(copy.completionQueue === queue)
        #expect(copy.completionGroup === group)
        #expect(copy.output == .file(target))
        #expect(copy.shouldUseCredentialStorage == false)
        #expect(copy.credential?.user == "u")
        copy.output = .memory
        #expect(copy.settings.output == .memory)
        #expect(source.settings.output == .file(target))
    }

    @Test func applyingSettingsDiscardsTheObjectSerializedBefore() async {
        let operation = HTTPRequestOperation(request: URLRequest(url: sharedServer.url("/bytes/7")))
        operation.completionQueue = DispatchQueue(label: "operation.settings.serializer")
        let first = await outcome(of: operation) { operation.start() }
        #expect(first.object as? Data == LoopbackServer.pattern(7))
        #expect(operation.responseObject as? Data == LoopbackServer.pattern(7))
        operation.updateSettings { $0.responseSerializer = ByteCountSerializer() }
        #expect(operation.responseObject as? Int == 7)
        operation.settings.responseSerializer = HTTPResponseSerializer()
        #expect(operation.responseObject as? Data == LoopbackServer.pattern(7))
    }
}
