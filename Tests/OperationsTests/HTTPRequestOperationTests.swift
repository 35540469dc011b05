import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFOperations
import AFCore
import AFProtocols
import LoopbackSupport

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
