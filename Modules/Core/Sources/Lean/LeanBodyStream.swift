import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of a ``LeanSession/bytes(for:bufferSize:)`` response as it arrives: an `AsyncSequence` of
/// chunks (`Data`, up to 64 KiB each, in order).
///
/// Backpressure: at most about `bufferSize` bytes wait for the consumer; past that the transfer is paused
/// (libcurl keeps the chunk it was offering) and resumes once the consumer has taken half of them. A slow
/// consumer is not idle time: `timeoutIntervalForRequest` does not run while the transfer waits for it.
///
/// Iterate it once. An error after some chunks (a reset connection, a timeout) is thrown by `next()` once
/// the chunks before it were taken. Cancelling the iterating Swift task, or dropping the sequence and its
/// iterator, cancels the transfer.
///
/// Threading: `Sendable`; one consumer at a time.
public struct LeanResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body, as libcurl delivered it.
    public typealias Element = Data
    /// The transfer's error (a URLError) after the chunks before it.
    public typealias Failure = any Error

    let consumer: LeanBodyConsumer

    /// The iterator; make one per sequence (the chunks are taken, not replayed).
    public func makeAsyncIterator() -> Iterator { Iterator(consumer: consumer) }

    /// Takes the chunks in order; `nil` after the last one.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: LeanBodyConsumer

        /// The next chunk, nil after the last; throws the transfer's error once the chunks before it
        /// were taken. Cancelling the calling task cancels the transfer.
        public mutating func next() async throws -> Data? {
            try await consumer.stream.next()
        }
    }
}

/// The consumer's hold on a stream: when the last sequence and iterator are gone, the transfer is
/// cancelled (nobody can read the rest). The stream itself lives as long as the transfer.
final class LeanBodyConsumer: Sendable {
    let stream: LeanBodyStream
    init(_ stream: LeanBodyStream) { self.stream = stream }
    deinit { stream.cancel() }
}

/// What the engine thread hands to a lean body's consumer: the head once, then chunks, then the end.
///
/// The engine thread calls ``offer(_:)``, ``headArrived(_:)`` and ``finish(_:error:)``; the consumer calls
/// ``next()``. The `@unchecked Sendable` state is read and written only under `lock`; continuations are
/// resumed outside it.
final class LeanBodyStream: @unchecked Sendable {
    private let lock = NSLock()
    private let highWater: Int
    private var chunks: [Data] = []
    private var chunkIndex = 0
    private var bufferedBytes = 0
    private var producerPaused = false
    private var peakBufferedBytes = 0
    private var pauses = 0

    /// The most slots the chunk queue ever had, consumed ones included (bounded even when the consumer
    /// never empties it).
    private var peakQueueSlots = 0

    /// The most bytes that ever waited for the consumer, how often the transfer paused, and the most
    /// slots the queue ever held: what the bound did (for tests and diagnostics).
    var backpressure: (peakBufferedBytes: Int, pauses: Int, peakQueueSlots: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (peakBufferedBytes, pauses, peakQueueSlots)
    }
    private var finished = false
    private var failure: (any Error)?
    private var head: CheckedContinuation<HTTPURLResponse, any Error>?
    private var consumer: CheckedContinuation<Data?, any Error>?
    /// The transfer's task, to resume and cancel it; nil once finished (the task holds this stream
    /// through its delivery: letting go of it then breaks the cycle).
    private var task: SessionTask?
    /// The final response's head once it arrived (a failure after it belongs to the body).
    private var headResponse: HTTPURLResponse?

    init(bufferSize: Int) {
        highWater = max(1, bufferSize)
    }

    /// Sets the task this stream belongs to (before it starts).
    func attach(_ task: SessionTask) {
        lock.lock()
        self.task = task
        lock.unlock()
    }

    /// Cancels the transfer unless it already ended.
    func cancel() {
        lock.lock()
        let task = finished ? nil : self.task
        lock.unlock()
        task?.cancel()
    }


    // MARK: Engine thread

    /// Takes `bytes` unless the buffer is full: then false, and the transfer pauses until the consumer
    /// has taken half the buffer (the same bytes are offered again then).
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lock.lock()
        if bufferedBytes >= highWater && consumer == nil {
            producerPaused = true
            pauses += 1
            lock.unlock()
            return false
        }
        let waiting = consumer
        consumer = nil
        let chunk = Data(bytes)
        if waiting == nil {
            chunks.append(chunk)
            bufferedBytes += chunk.count
            peakBufferedBytes = max(peakBufferedBytes, bufferedBytes)
            peakQueueSlots = max(peakQueueSlots, chunks.count)
        }
        lock.unlock()
        waiting?.resume(returning: chunk)
        return true
    }

    /// The final response's head arrived (after redirects and challenges).
    func headArrived(_ response: HTTPURLResponse) {
        lock.lock()
        headResponse = response
        let waiting = head
        head = nil
        lock.unlock()
        waiting?.resume(returning: response)
    }

    /// The transfer ended: after the buffered chunks, `next()` returns nil, or throws `error`.
    func finish(_ task: SessionTask, error: (any Error)?) {
        let response = task.response as? HTTPURLResponse
        lock.lock()
        finished = true
        failure = error
        if headResponse == nil, error == nil { headResponse = response }
        self.task = nil
        let waitingHead = head  // only set while no head arrived
        head = nil
        let waiting = chunkIndex == chunks.count ? consumer : nil
        if waiting != nil { consumer = nil }
        lock.unlock()
        if let waitingHead {
            if let error { waitingHead.resume(throwing: error) }
            else if let response { waitingHead.resume(returning: response) }
            else { waitingHead.resume(throwing: CurlErrorMapping.error(.badServerResponse, url: task.originalRequest?.url)) }
        }
        if let waiting {
            if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
        }
    }

    // MARK: Consumer

    /// The response head, once it arrived; throws when the transfer failed before it.
    func response() async throws -> HTTPURLResponse {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let headResponse {
                lock.unlock()
                continuation.resume(returning: headResponse)
                return
            }
            guard finished else {
                head = continuation
                lock.unlock()
                return
            }
            // Ended before any head: the failure is the caller's (kept for nobody else).
            let failure = self.failure
            self.failure = nil
            lock.unlock()
            continuation.resume(throwing: failure ?? CurlErrorMapping.error(.badServerResponse, url: nil))
        }
    }

    /// The next chunk, nil at the end; throws the transfer's error after the chunks before it.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                lock.lock()
                if chunkIndex < chunks.count {
                    let chunk = chunks[chunkIndex]
                    // The slot lets go of the chunk now: a consumer that never quite catches up never
                    // empties the array, and consumed chunks must not stay alive in it.
                    chunks[chunkIndex] = Data()
                    chunkIndex += 1
                    bufferedBytes -= chunk.count
                    if chunkIndex == chunks.count {
                        chunks.removeAll(keepingCapacity: true)
                        chunkIndex = 0
                    } else if chunkIndex >= 64 && chunkIndex * 2 >= chunks.count {
                        chunks.removeFirst(chunkIndex)
                        chunkIndex = 0
                    }
                    let resumed = producerPaused && bufferedBytes <= highWater / 2 ? task : nil
                    if resumed != nil { producerPaused = false }
                    lock.unlock()
                    if let resumed { resumed.controller.unpauseTask(resumed) }
                    continuation.resume(returning: chunk)
                    return
                }
                if finished {
                    let failure = self.failure
                    self.failure = nil  // thrown once; then the sequence is over
                    lock.unlock()
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
                    return
                }
                consumer = continuation
                let resumed = producerPaused ? task : nil
                producerPaused = false
                lock.unlock()
                if let resumed { resumed.controller.unpauseTask(resumed) }
            }
        } onCancel: {
            cancel()
        }
    }
}
