import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFOperations
import AFCore
import AFProtocols
import LoopbackSupport

@Suite("Operation batches and manager")
struct OperationBatchTests {
    @Test("a batch reports 1...n and completes once, after every completion closure")
    func batch() async {
        let serial = DispatchQueue(label: "operation.tests.batch")
        let events = Protected<[String]>([])
        let operations = (1...5).map { index -> HTTPRequestOperation in
            let operation = loopbackOperation("/bytes/\(index * 100)")
            operation.completionQueue = serial
            operation.setCompletionBlockWithSuccess({ _, _ in events.withLock { $0.append("done") } },
                                                    failure: { _, _ in events.withLock { $0.append("failed") } })
            return operation
        }
        let queue = OperationQueue()
        let finished: [HTTPRequestOperation] = await withCheckedContinuation { continuation in
            let batch = HTTPRequestOperation.batchOfRequestOperations(operations, progress: { finished, total in
                events.withLock { $0.append("\(finished)/\(total)") }
            }, completion: { finished in
                continuation.resume(returning: finished)
            }, completionQueue: serial)
            #expect(batch.count == 6)
            queue.addOperations(batch, waitUntilFinished: false)
        }
        #expect(finished.count == 5)
        #expect(zip(finished, operations).allSatisfy { $0 === $1 })
        let log = events.withLock { $0 }
        #expect(log.filter { $0 == "done" }.count == 5)
        #expect(log.filter { $0.contains("/") } == ["1/5", "2/5", "3/5", "4/5", "5/5"])
        try? await Task.sleep(for: .milliseconds(50))
        #expect(events.withLock { $0 }.count == 10)
    }

    @Test("an empty batch completes with an empty array")
    func emptyBatch() async {
        let queue = OperationQueue()
        let finished: [HTTPRequestOperation] = await withCheckedContinuation { continuation in
            let batch = HTTPRequestOperation.batchOfRequestOperations([], progress: nil, completion: { finished in
                continuation.resume(returning: finished)
            }, completionQueue: DispatchQueue(label: "operation.tests.empty"))
            #expect(batch.count == 1)
            queue.addOperations(batch, waitUntilFinished: false)
        }
        #expect(finished.isEmpty)
    }

    @Test("the manager queues operations built from its base URL and serializer")
    func managerVerbs() async throws {
        let manager = HTTPRequestOperationManager(baseURL: sharedServer.url("/"),
                                                  requestSerializer: FormURLEncodingRequestSerializer(),
                                                  responseSerializer: HTTPResponseSerializer())
        manager.completionQueue = DispatchQueue(label: "operation.tests.manager")
        let object: Data? = await withCheckedContinuation { continuation in
            let operation = manager.get("query", parameters: ["a": "1", "b": "x y"], success: { _, object in
                continuation.resume(returning: object as? Data)
            }, failure: { _, _ in continuation.resume(returning: nil) })
            #expect(operation != nil)
        }
        #expect(object.map { String(decoding: $0, as: UTF8.self) } == "a=1&b=x%20y")

        let method: String? = await withCheckedContinuation { continuation in
            manager.delete("echo", success: { operation, _ in
                continuation.resume(returning: operation.response?.value(forHTTPHeaderField: "X-Method"))
            }, failure: { _, _ in continuation.resume(returning: nil) })
        }
        #expect(method == "DELETE")

        let failure: Int? = await withCheckedContinuation { continuation in
            let operation = manager.get("http://[bad", success: { _, _ in continuation.resume(returning: nil) },
                                        failure: { operation, error in
                                            #expect(operation == nil)
                                            continuation.resume(returning: (error as NSError).code)
                                        })
            #expect(operation == nil)
        }
        #expect(failure == -1000)
    }
}

@Suite("Operation hooks")
struct OperationHookTests {
    @Test("the redirect closure can stop at the redirect response")
    func redirectStops() async {
        let seen = Protected<[Int]>([])
        let operation = loopbackOperation("/redirect")
        operation.responseSerializer = HTTPResponseSerializer(validation: HTTPResponseValidation(acceptableStatusCodes: nil))
        operation.setRedirectResponseBlock { _, request, response in
            seen.withLock { $0.append(response.statusCode) }
            #expect(request.url?.path == "/bytes/5")
            return nil
        }
        let result = await outcome(of: operation) { operation.start() }
        #expect(result.succeeded)
        #expect(seen.withLock { $0 } == [302])
        #expect(operation.response?.statusCode == 302)
    }

    @Test("redirects are followed without a closure")
    func redirectFollowed() async {
        let operation = loopbackOperation("/redirect")
        let result = await outcome(of: operation) { operation.start() }
        #expect(result.object as? Data == LoopbackServer.pattern(5))
    }

    @Test("the credential answers a Basic challenge; the challenge closure replaces it")
    func authentication() async {
        let operation = loopbackOperation("/auth")
        operation.credential = URLCredential(user: "user", password: "passwd", persistence: .none)
        let result = await outcome(of: operation) { operation.start() }
        #expect(operation.responseString == "authenticated")
        #expect(result.succeeded)

        let rejecting = loopbackOperation("/auth")
        rejecting.credential = URLCredential(user: "user", password: "passwd", persistence: .none)
        let realms = Protected<[String?]>([])
        rejecting.setWillSendRequestForAuthenticationChallengeBlock { _, challenge in
            realms.withLock { $0.append(challenge.protectionSpace.realm) }
            return (.rejectProtectionSpace, nil)
        }
        let rejected = await outcome(of: rejecting) { rejecting.start() }
        #expect(!rejected.succeeded)
        #expect(rejecting.response?.statusCode == 401)
        #expect(realms.withLock { $0 } == ["Fake Realm"])
    }
}
