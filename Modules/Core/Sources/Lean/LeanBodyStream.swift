import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of a ``LeanSession/bytes(for:bufferSize:)->(_,HTTPURLResponse)`` response as it arrives: an `AsyncSequence` of
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
/// ``next()``. All state is one value behind one lock; continuations are resumed outside it.
final class LeanBodyStream: Sendable {
    private struct State {
        var chunks: [Data] = []
        var chunkIndex = 0
        var bufferedBytes = 0
        var producerPaused = false
        var peakBufferedBytes = 0
        var pauses = 0
        /// The most slots the chunk queue ever had, consumed ones included (bounded even when the
        /// consumer never empties it).
        var peakQueueSlots = 0
        var finished = false
        var failure: (any Error)?
        var head: LeanContinuation<ResponseHead>?
        var consumer: LeanContinuation<Data?>?
        /// The transfer's task, to resume and cancel it; nil once finished (the task holds this stream
        /// through its delivery: letting go of it then breaks the cycle).
        var task: SessionTask?
        /// The final response's head once it arrived (a failure after it belongs to the body). The caller
        /// turns it into the response type it asked for, off the engine thread.
        var headResponse: ResponseHead?

        /// Takes the next chunk and lets go of its slot at once: a consumer that never quite catches up
        /// never empties the queue, and consumed chunks must not stay alive in it.
        mutating func takeChunk() -> Data {
            let chunk = chunks[chunkIndex]
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
            return chunk
        }

        /// The next chunk or the end, when either is here (nil: the consumer must wait), and the task to
        /// unpause when taking the chunk brought the buffer down to half of `highWater`.
        mutating func takeReady(highWater: Int) -> (ready: Result<Data?, any Error>?, resumed: SessionTask?) {
            if chunkIndex < chunks.count {
                let chunk = takeChunk()
                let resumed = producerPaused && bufferedBytes <= highWater / 2 ? task : nil
                if resumed != nil { producerPaused = false }
                return (.success(chunk), resumed)
            }
            guard finished else { return (nil, nil) }
            defer { failure = nil }  // thrown once; then the sequence is over
            return (failure.map { .failure($0) } ?? .success(nil), nil)
        }
    }

    private let highWater: Int
    private let state = Protected(State())

    /// The most bytes that ever waited for the consumer, how often the transfer paused, and the most
    /// slots the queue ever held: what the bound did (for tests and diagnostics).
    var backpressure: (peakBufferedBytes: Int, pauses: Int, peakQueueSlots: Int) {
        state.withLock { ($0.peakBufferedBytes, $0.pauses, $0.peakQueueSlots) }
    }

    /// A caller waits for the head (for tests and diagnostics).
    var callerWaitsForHead: Bool { state.withLock { $0.head != nil } }

    /// A reader waits for the next chunk (for tests and diagnostics).
    var readerWaits: Bool { state.withLock { $0.consumer != nil } }

    init(bufferSize: Int) {
        highWater = max(1, bufferSize)
    }

    /// Sets the task this stream belongs to (before it starts).
    func attach(_ task: SessionTask) {
        state.withLock { $0.task = task }
    }

    /// Cancels the transfer unless it already ended.
    func cancel() {
        let task = state.withLock { $0.finished ? nil : $0.task }
        task?.cancel()
    }

    // MARK: Engine thread

    /// Takes `bytes` unless the buffer is full: then false, and the transfer pauses until the consumer
    /// has taken half the buffer (the same bytes are offered again then).
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let highWater = self.highWater
        let outcome = state.withLock { state -> (accepted: Bool, waiting: LeanContinuation<Data?>?, chunk: Data?) in
            if state.bufferedBytes >= highWater && state.consumer == nil {
                state.producerPaused = true
                state.pauses += 1
                return (false, nil, nil)
            }
            let waiting = state.consumer
            state.consumer = nil
            let chunk = Data(bytes)
            if waiting == nil {
                state.chunks.append(chunk)
                state.bufferedBytes += chunk.count
                state.peakBufferedBytes = max(state.peakBufferedBytes, state.bufferedBytes)
                state.peakQueueSlots = max(state.peakQueueSlots, state.chunks.count)
            }
            return (true, waiting, chunk)
        }
        if let waiting = outcome.waiting, let chunk = outcome.chunk { waiting.resume(returning: chunk) }
        return outcome.accepted
    }

    /// The final response's head arrived (after redirects and challenges). A caller that asks from now
    /// on has it at once; a caller already waiting is woken by ``releaseHead()`` (the engine calls it at
    /// the end of its turn, see ``StreamHeadQueue``) or by ``finish(_:error:)``, whichever comes first.
    /// - Returns: whether a caller waits for the head (then the engine must release it).
    func headArrived(_ response: ResponseHead) -> Bool {
        state.withLock { state in
            state.headResponse = response
            return state.head != nil
        }
    }

    /// Wakes the caller waiting for the head that arrived, unless it was woken already.
    func releaseHead() {
        let (waiting, response) = state.withLock { state in
            defer { state.head = nil }
            return (state.head, state.headResponse)
        }
        if let waiting, let response { waiting.resume(returning: response) }
    }

    /// The transfer ended: after the buffered chunks, `next()` returns nil, or throws `error`.
    func finish(_ task: SessionTask, error: (any Error)?) {
        let response = task.updateStorage { $0.responseHead }
        let (waitingHead, arrived, waiting) = state.withLock { state in
            state.finished = true
            state.failure = error
            // A head that arrived is the caller's answer; an error after it belongs to the body.
            let arrived = state.headResponse
            if arrived == nil, error == nil { state.headResponse = response }
            state.task = nil
            let waitingHead = state.head  // set while no head arrived, or one arrived this engine turn
            state.head = nil
            let waiting = state.chunkIndex == state.chunks.count ? state.consumer : nil
            // The error is thrown once: to a caller waiting for a head that never came, or to a reader
            // waiting for the next chunk, and then not kept for the next read (which finds the end).
            if (waitingHead != nil && arrived == nil) || waiting != nil { state.failure = nil }
            if waiting != nil { state.consumer = nil }
            return (waitingHead, arrived, waiting)
        }
        if let waitingHead {
            if let arrived { waitingHead.resume(returning: arrived) }
            else if let error { waitingHead.resume(throwing: error) }
            else if let response { waitingHead.resume(returning: response) }
            else { waitingHead.resume(throwing: CurlErrorMapping.error(.badServerResponse, url: task.originalURL)) }
        }
        if let waiting {
            if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
        }
    }

    // MARK: Consumer

    /// The response head, once it arrived; throws when the transfer failed before it.
    func response() async throws -> ResponseHead {
        try await withLeanContinuation { continuation in
            enum Answer { case response(ResponseHead), failure(any Error), wait }
            let answer = state.withLock { state -> Answer in
                if let headResponse = state.headResponse { return .response(headResponse) }
                guard state.finished else {
                    state.head = continuation
                    return .wait
                }
                // Ended before any head: the failure is the caller's (kept for nobody else).
                defer { state.failure = nil }
                return .failure(state.failure ?? CurlErrorMapping.error(.badServerResponse, url: nil))
            }
            switch answer {
            case .response(let response): continuation.resume(returning: response)
            case .failure(let error): continuation.resume(throwing: error)
            case .wait: break
            }
        }
    }

    /// The next chunk, nil at the end; throws the transfer's error after the chunks before it.
    func next() async throws -> Data? {
        // What is here already is taken without a continuation or a cancellation handler (a cancelled
        // task goes the slow way, whose handler cancels the transfer).
        let highWater = self.highWater
        if !Task.isCancelled {
            let (ready, resumed) = state.withLock { $0.takeReady(highWater: highWater) }
            if let resumed { resumed.controller.unpauseTask(resumed) }
            if let ready { return try ready.get() }
        }
        return try await withTaskCancellationHandler {
            try await withLeanContinuation { (continuation: LeanContinuation<Data?>) in
                let (ready, resumed) = state.withLock { state -> (Result<Data?, any Error>?, SessionTask?) in
                    let taken = state.takeReady(highWater: highWater)
                    if taken.ready != nil { return taken }
                    state.consumer = continuation
                    let resumed = state.producerPaused ? state.task : nil
                    state.producerPaused = false
                    return (nil, resumed)
                }
                if let resumed { resumed.controller.unpauseTask(resumed) }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }
}
