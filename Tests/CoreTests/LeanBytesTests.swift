import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

@Suite("Lean path: bytes(for:) streams the body with backpressure")
struct LeanBytesTests {
    @Test func theBodyArrivesInOrderAfterTheHead() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (body, response) = try await manager.session.bytes(for: URLRequest(url: sharedServer.url("/bytes/300000")))
        #expect(response.statusCode == 200)
        #expect(response.expectedContentLength == 300_000)
        var received = Data()
        for try await chunk in body { received.append(chunk) }
        #expect(received == LoopbackServer.pattern(300_000))

        let (missingBody, missing) = try await manager.session.bytes(for: URLRequest(url: sharedServer.url("/status/404")))
        #expect(missing.statusCode == 404)
        var missingCount = 0
        for try await chunk in missingBody { missingCount += chunk.count }
        #expect(missingCount == 0)
    }

    @Test func aSlowConsumerPausesTheTransferAndKeepsTheBufferBounded() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let size = 8_000_000, bound = 64 * 1024
        let (body, _) = try await manager.session.bytes(for: URLRequest(url: sharedServer.url("/bytes/\(size)")),
                                                        bufferSize: bound)
        var received = Data()
        var chunks = 0
        for try await chunk in body {
            received.append(chunk)
            chunks += 1
            // A slow reader for a while: the engine must stop reading instead of buffering.
            if chunks <= 40 { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(received == LoopbackServer.pattern(size))
        let backpressure = body.consumer.stream.backpressure
        // One chunk (libcurl's 64 KiB buffer at most) may land on a full buffer's last free byte.
        #expect(backpressure.peakBufferedBytes <= bound + 64 * 1024)
        #expect(backpressure.pauses > 0)
    }

    @Test func consumedChunksAreLetGoOfWhenTheQueueNeverEmpties() async throws {
        let stream = LeanBodyStream(bufferSize: 1 << 20)
        let chunk = [UInt8](repeating: 7, count: 1000)
        // The producer stays one chunk ahead, so the queue is never empty when the consumer takes one.
        #expect(chunk.withUnsafeBytes { stream.offer($0) })
        for _ in 0..<1000 {
            #expect(chunk.withUnsafeBytes { stream.offer($0) })
            #expect(try await stream.next()?.count == 1000)
        }
        #expect(stream.backpressure.peakBufferedBytes == 2000)
        // Compacted once 64 consumed slots are at least half the queue: 64 consumed plus the one ahead.
        #expect(stream.backpressure.peakQueueSlots == 65)
    }

    @Test func cancellingTheReaderCancelsTheTransfer() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (body, _) = try await manager.session.bytes(for: URLRequest(url: sharedServer.url("/slow/4000000")))
        let reader = Task { () -> (bytes: Int, code: Int?) in
            var iterator = body.makeAsyncIterator()
            var bytes = 0
            do {
                while let chunk = try await iterator.next() {
                    bytes += chunk.count
                    withUnsafeCurrentTask { $0?.cancel() }  // stop reading after the first chunk
                }
                return (bytes, nil)
            } catch {
                return (bytes, (error as? URLError)?.errorCode)
            }
        }
        let outcome = await reader.value
        #expect(outcome.bytes > 0 && outcome.bytes < 4_000_000)
        #expect(outcome.code == NSURLErrorCancelled)
    }

    @Test func anErrorAfterTheFirstChunkComesAfterThatChunk() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        // 100 of 1,000 announced bytes, then the connection closes.
        let (body, response) = try await manager.session.bytes(for: URLRequest(url: sharedServer.url("/drop")))
        #expect(response.statusCode == 200)
        var iterator = body.makeAsyncIterator()
        var received = Data()
        var failure: URLError?
        do {
            while let chunk = try await iterator.next() { received.append(chunk) }
        } catch {
            failure = error as? URLError
        }
        #expect(received == LoopbackServer.pattern(100))
        #expect(failure?.errorCode == NSURLErrorNetworkConnectionLost)
        // After the error the sequence is over.
        #expect(try await iterator.next() == nil)
    }

    @Test func aFailureBeforeTheHeadIsThrownByBytes() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: URL(string: "ftp://127.0.0.1/file")!)
        request.timeoutInterval = 5
        let error = try await #require(throws: URLError.self) { try await manager.session.bytes(for: request) }
        #expect(error.errorCode == NSURLErrorUnsupportedURL)
    }

    /// The engine's side of a stream driven by hand: one turn brings the head, the whole body and the end.
    private func streamAndTask() -> (LeanBodyStream, SessionTask, ResponseHead) {
        let stream = LeanBodyStream(bufferSize: 1 << 20)
        let task = SessionDataTask(identifier: 1, request: URLRequest(url: URL(string: "http://127.0.0.1/x")!),
                                   bodySource: nil, controller: LeanTaskController())
        stream.attach(task)
        let head = ResponseHead(url: URL(string: "http://127.0.0.1/x")!, statusCode: 200, httpVersion: "HTTP/1.1",
                                headerLines: Array("Content-Length: 5\n".utf8))
        return (stream, task, head)
    }

    /// Returns once a caller waits for `stream`'s head (its continuation is registered under the lock).
    private func waitUntilTheCallerWaits(_ stream: LeanBodyStream) async throws {
        try await waitUntil("the caller never waited for the head") { stream.callerWaitsForHead }
    }

    private func waitUntil(_ failure: Comment, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            try #require(ContinuousClock.now < deadline, failure)
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func aWaitingCallerIsWokenAtTheEndOfTheTurnAndFindsTheBodyThere() async throws {
        let (stream, task, head) = streamAndTask()
        let caller = Task { try await stream.response().statusCode }
        try await waitUntilTheCallerWaits(stream)
        #expect(stream.headArrived(head))  // the caller waits: the engine must release the head
        #expect(Array("hello".utf8).withUnsafeBytes { stream.offer($0) })
        stream.finish(task, error: nil)  // the turn's completions run before its heads are released
        stream.releaseHead()  // nothing left to wake: finish woke the caller with the head that arrived
        #expect(try await caller.value == 200)
        // The chunk and the end were there before the caller asked: taken without waiting.
        #expect(try await stream.next() == Data("hello".utf8))
        #expect(try await stream.next() == nil)
    }

    @Test func aReaderWaitingWhenTheTransferFailsGetsTheErrorOnceThenTheEnd() async throws {
        let (stream, task, head) = streamAndTask()
        #expect(!stream.headArrived(head))  // nobody waits for it yet
        #expect(try await stream.response().statusCode == 200)
        let reader = Task { () -> URLError? in
            do {
                _ = try await stream.next()
                return nil
            } catch {
                return error as? URLError
            }
        }
        try await waitUntil("the reader never waited for a chunk") { stream.readerWaits }
        stream.finish(task, error: URLError(.networkConnectionLost))
        #expect(await reader.value?.code == .networkConnectionLost)
        #expect(try await stream.next() == nil)  // thrown once: then the sequence is over
    }

    @Test func anErrorInTheTurnTheHeadArrivedInBelongsToTheBody() async throws {
        let (stream, task, head) = streamAndTask()
        let caller = Task { try await stream.response().statusCode }
        try await waitUntilTheCallerWaits(stream)
        #expect(stream.headArrived(head))
        #expect(Array("he".utf8).withUnsafeBytes { stream.offer($0) })
        stream.finish(task, error: URLError(.networkConnectionLost))
        #expect(try await caller.value == 200)
        #expect(try await stream.next() == Data("he".utf8))
        let error = await #expect(throws: URLError.self) { try await stream.next() }
        #expect(error?.code == .networkConnectionLost)
    }
}
