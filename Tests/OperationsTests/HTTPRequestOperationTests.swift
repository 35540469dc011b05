import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFOperations
import AFCore
import LoopbackSupport
import AFProtocols


/// What an operation's success or failure closure received.
struct OperationOutcome: @unchecked Sendable {
    // @unchecked Sendable: test-only; written once by the completion closure, read after.
    var succeeded: Bool
    var object: Any?
    var error: NSError?
}

/// An operation on `path` of the loopback server whose closures run on a private queue.
func loopbackOperation(_ path: String) -> HTTPRequestOperation {
    let operation = HTTPRequestOperation(request: URLRequest(url: sharedServer.url(path)),
                                         sessionConfiguration: .ephemeral)
    operation.completionQueue = DispatchQueue(label: "operation.tests.completion")
    return operation
}

/// Sets the completion closures, runs `start` and waits for one of the closures.
func outcome(of operation: HTTPRequestOperation, start: () -> Void = {}) async -> OperationOutcome {
    await withCheckedContinuation { continuation in
        operation.setCompletionBlockWithSuccess({ _, object in
            continuation.resume(returning: OperationOutcome(succeeded: true, object: object, error: nil))
        }, failure: { _, error in
            continuation.resume(returning: OperationOutcome(succeeded: false, object: nil, error: error as NSError))
        })
        start()
    }
}

@Suite("Operation state rule")
struct RequestOperationStateTests {
    @Test("only AFNetworking's transitions are legal")
    func transitionTable() {
        let legal: Set<[RequestOperationState]> = [
            [.ready, .paused], [.ready, .executing], [.executing, .paused], [.executing, .finished], [.paused, .ready],
        ]
        for from in RequestOperationState.allCases {
            for to in RequestOperationState.allCases {
                #expect(from.canMove(to: to, isCancelled: false) == legal.contains([from, to]), "\(from) -> \(to)")
                let cancelledLegal = legal.contains([from, to]) || (from == .ready && to == .finished)
                #expect(from.canMove(to: to, isCancelled: true) == cancelledLegal, "\(from) -> \(to), cancelled")
            }
        }
    }

    @Test("a new operation is ready, not executing, not finished, and asynchronous")
    func initialState() {
        let operation = loopbackOperation("/bytes/1")
        #expect(operation.state == .ready)
        #expect(operation.isReady)
        #expect(!operation.isExecuting)
        #expect(!operation.isFinished)
        #expect(operation.isAsynchronous)
        #expect(operation.responseObject == nil)
        #expect(operation.error == nil)
    }

    @Test("pause and resume of a finished operation, and resume of a ready one, are ignored")
    func illegalTransitionsIgnored() async {
        let operation = loopbackOperation("/bytes/10")
        operation.resume()  // not paused
        #expect(operation.state == .ready)
        let result = await outcome(of: operation) { operation.start() }
        #expect(result.succeeded)
        #expect(operation.state == .finished)
        operation.pause()
        #expect(operation.state == .finished)
        operation.resume()
        #expect(operation.state == .finished)
        operation.cancel()
        #expect(operation.state == .finished)
        #expect(!operation.isCancelled)
        operation.start()
        #expect(operation.state == .finished)
        #expect(operation.responseData == LoopbackServer.pattern(10))
    }

    @Test("pausing a ready operation keeps it from the queue until resumed")
    func pauseBeforeStart() async {
        let operation = loopbackOperation("/bytes/20")
        operation.pause()
        #expect(operation.state == .paused)
        #expect(!operation.isReady)
        operation.pause()
        #expect(operation.state == .paused)
        let queue = OperationQueue()
        let result = await outcome(of: operation) {
            queue.addOperation(operation)
            #expect(operation.state == .paused)
            operation.resume()
        }
        #expect(result.succeeded)
        #expect(operation.responseData == LoopbackServer.pattern(20))
    }
}

@Suite("HTTPRequestOperation")
struct HTTPRequestOperationTests {
    @Test("runs a GET: data, response, lazily serialized object")
    func runsRequest() async throws {
        let operation = loopbackOperation("/bytes/1000")
        let result = await outcome(of: operation) { operation.start() }
        #expect(result.succeeded)
        #expect(result.object as? Data == LoopbackServer.pattern(1000))
        #expect(operation.response?.statusCode == 200)
        #expect(operation.responseData == LoopbackServer.pattern(1000))
        #expect(operation.responseObject as? Data == LoopbackServer.pattern(1000))
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("cancelled before start in a queue: finishes with -999")
    func cancelBeforeStart() async {
        let operation = loopbackOperation("/bytes/10")
        operation.cancel()
        let queue = OperationQueue()
        let result = await outcome(of: operation) { queue.addOperation(operation) }
        #expect(!result.succeeded)
        #expect(result.error?.code == -999)
        #expect(result.error?.domain == NSURLErrorDomain)
        #expect(operation.isFinished)
        #expect(operation.response == nil)
        let drained = await eventually { queue.operationCount == 0 }
        #expect(drained)
    }

    @Test("cancelled while executing: finishes at once with -999")
    func cancelWhileExecuting() async {
        let operation = loopbackOperation("/stall")
        let result = await outcome(of: operation) {
            operation.start()
            operation.cancel()
        }
        #expect(result.error?.code == -999)
        #expect(operation.isFinished)
    }

    @Test("dependencies in an OperationQueue run in order")
    func dependenciesRunInOrder() async {
        let order = Protected<[Int]>([])
        let queue = OperationQueue()
        let serial = DispatchQueue(label: "operation.tests.order")
        let operations = [loopbackOperation("/slow/20000"), loopbackOperation("/bytes/10"), loopbackOperation("/bytes/5")]
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for (index, operation) in operations.enumerated() {
                operation.completionQueue = serial
                operation.setCompletionBlockWithSuccess({ _, _ in
                    let count = order.withLock { order in
                        order.append(index)
                        return order.count
                    }
                    if count == operations.count { continuation.resume() }
                }, failure: { _, _ in })
            }
            operations[1].addDependency(operations[0])
            operations[2].addDependency(operations[1])
            queue.addOperations(operations.reversed(), waitUntilFinished: false)
        }
        #expect(order.withLock { $0 } == [0, 1, 2])
        #expect(operations.allSatisfy { $0.isFinished })
    }

    @Test("404 fails with the serializer's validation error")
    func validationFailure() async {
        let operation = loopbackOperation("/status/404")
        let result = await outcome(of: operation) { operation.start() }
        #expect(!result.succeeded)
        #expect(result.error?.domain == URLResponseSerializationErrorDomain)
        #expect(result.error?.code == -1011)
        #expect(operation.response?.statusCode == 404)
        // As AFHTTPResponseSerializer: the body is the object even when validation fails.
        #expect(operation.responseObject as? Data == Data())
    }

    @Test("a serialization error takes precedence over the transport error")
    func serializationErrorFirst() async {
        let operation = loopbackOperation("/drop")
        operation.responseSerializer = HTTPResponseSerializer(
            validation: HTTPResponseValidation(acceptableContentTypes: ["application/json"]))
        let result = await outcome(of: operation) { operation.start() }
        #expect(!result.succeeded)
        #expect(result.error?.domain == URLResponseSerializationErrorDomain)
        #expect(result.error?.code == -1016)
        #expect((operation.error as NSError?)?.code == -1016)
        #expect(operation.responseObject == nil)
    }

    @Test("a transport error alone is the error, with no object")
    func transportError() async {
        let operation = loopbackOperation("/drop")
        let result = await outcome(of: operation) { operation.start() }
        #expect(!result.succeeded)
        #expect(result.error?.domain == NSURLErrorDomain)
        #expect(result.error?.code == -1005)
        #expect(operation.responseObject == nil)
    }

    @Test("the body streams to a file")
    func outputToFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("operation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("old contents that must go".utf8).write(to: file)
        let operation = loopbackOperation("/bytes/70000")
        operation.output = .file(file)
        let result = await outcome(of: operation) { operation.start() }
        #expect(result.succeeded)
        #expect(operation.responseData == nil)
        let written = try Data(contentsOf: file)
        #expect(written == LoopbackServer.pattern(70000))
    }

    @Test("an output file that cannot be created fails the operation with a file error")
    func unwritableOutput() async {
        let operation = loopbackOperation("/bytes/10")
        operation.output = .file(URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/body.bin"))
        let result = await outcome(of: operation) { operation.start() }
        #expect(!result.succeeded)
        #expect(result.error?.domain == NSCocoaErrorDomain)
        #expect(result.error?.code == CocoaError.fileWriteUnknown.rawValue)
        #expect(operation.isFinished)
    }

    @Test("download progress reaches the body length; upload progress the sent length")
    func progressClosures() async {
        let received = Protected<(calls: Int, total: Int64, expected: Int64, sum: Int)>((0, 0, 0, 0))
        let download = loopbackOperation("/bytes/50000")
        download.setDownloadProgressBlock { bytes, total, expected in
            received.withLock { $0 = ($0.calls + 1, total, expected, $0.sum + bytes) }
        }
        _ = await outcome(of: download) { download.start() }
        let seen = received.withLock { $0 }
        #expect(seen.calls >= 1)
        #expect(seen.total == 50000)
        #expect(seen.expected == 50000)
        #expect(seen.sum == 50000)

        let sent = Protected<Int64>(0)
        var request = URLRequest(url: sharedServer.url("/echo"))
        request.httpMethod = "POST"
        request.httpBody = LoopbackServer.pattern(30000)
        let upload = HTTPRequestOperation(request: request, sessionConfiguration: .ephemeral)
        upload.completionQueue = DispatchQueue(label: "operation.tests.upload")
        upload.setUploadProgressBlock { _, total, _ in sent.withLock { $0 = total } }
        let result = await outcome(of: upload) { upload.start() }
        #expect(result.object as? Data == LoopbackServer.pattern(30000))
        #expect(sent.withLock { $0 } == 30000)
    }

    @Test("start and finish are posted once each for a plain run; a cancelled one only finishes")
    func notifications() async {
        let operation = loopbackOperation("/bytes/10")
        let started = NotificationCounter(.networkingOperationDidStart, object: operation)
        let finished = NotificationCounter(.networkingOperationDidFinish, object: operation)
        _ = await outcome(of: operation) { operation.start() }
        #expect(started.value == 1)
        #expect(finished.value == 1)

        let cancelled = loopbackOperation("/bytes/10")
        let cancelledStarts = NotificationCounter(.networkingOperationDidStart, object: cancelled)
        let cancelledFinishes = NotificationCounter(.networkingOperationDidFinish, object: cancelled)
        cancelled.cancel()
        _ = await outcome(of: cancelled) { cancelled.start() }
        #expect(cancelledStarts.value == 0)
        #expect(cancelledFinishes.value == 1)
    }

    @Test("pause then resume against a server ignoring Range restarts the body and ends complete")
    func pauseResumeRestart() async throws {
        let length = 400_000
        let operation = loopbackOperation("/slow/\(length)")
        let paused = Protected(false)
        let started = NotificationCounter(.networkingOperationDidStart, object: operation)
        let finished = NotificationCounter(.networkingOperationDidFinish, object: operation)
        operation.setDownloadProgressBlock { _, total, _ in
            if total > 50_000, !paused.withLock({ $0 }) {
                paused.withLock { $0 = true }
                operation.pause()
            }
        }
        let result = await outcome(of: operation) {
            operation.start()
            Task {
                while !paused.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                try? await Task.sleep(for: .milliseconds(50))
                #expect(operation.state == .paused)
                #expect(!operation.isExecuting && !operation.isFinished)
                operation.resume()
            }
        }
        #expect(result.succeeded)
        #expect(operation.response?.statusCode == 200)
        #expect(operation.responseData == LoopbackServer.pattern(length))
        // AFNetworking posts "finish" for the pause too.
        #expect(started.value == 2)
        #expect(finished.value == 2)
    }

    @Test("the If-Range validator is the ETag, found whatever its header case, else Last-Modified")
    func validatorLookup() throws {
        let url = sharedServer.url("/x")
        let etag = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                                headerFields: ["etag": "\"abc\"", "Last-Modified": "Mon"]))
        #expect(HTTPRequestOperation.validator(of: etag) == "\"abc\"")
        let modified = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                                    headerFields: ["last-MODIFIED": "Mon"]))
        #expect(HTTPRequestOperation.validator(of: modified) == "Mon")
        let none = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        #expect(HTTPRequestOperation.validator(of: none) == nil)
    }
}

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
