import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reading a task's messages: one at a time, with a completion handler, or as an `AsyncSequence`.
extension WebSocketTask {
    /// The next message. Waits while none has arrived (cancelling the waiting Swift task throws
    /// `CancellationError`).
    /// - Throws: ``WebSocketTaskError``: the connection's ending once it ended and no message is left.
    public func receive() async throws -> Message {
        guard let message = try await nextMessage() else {
            throw state.withLock { $0.ending } ?? WebSocketTaskError.notConnected
        }
        return message
    }

    /// ``receive()`` with a completion handler: the next message, or the connection's ending
    /// (``WebSocketTaskError``) once it ended and no message is left.
    ///
    /// Threading: when a message is waiting, the handler runs at once on the calling thread; otherwise it
    /// runs on the session's engine thread when the message arrives, as websocket-kit's callbacks run on
    /// their event loop: without a hop to another thread, so it must not block (hand long work to a queue
    /// of your own). Handlers run one after another, in order, never beside or inside each other: a
    /// handler that calls this method again while messages wait is run after it returns, and one that
    /// becomes due while another thread is running this task's handlers runs on that thread, after them.
    public func receive(completionHandler: @escaping @Sendable (Result<Message, any Error>) -> Void) {
        let (runs, resumes) = state.withLock { inner -> (Bool, [@Sendable () -> Void]) in
            var resumes: [@Sendable () -> Void] = []
            if let message = takeBuffered(&inner) {
                inner.readyCallbacks.append(ReadyCallback(handler: completionHandler, result: .success(message)))
                resumes = resumeReadingIfDrained(&inner)
            } else if let ending = inner.ending {
                inner.readyCallbacks.append(ReadyCallback(handler: completionHandler, result: .failure(ending)))
            } else {
                inner.waiters.append(.handler(completionHandler))
                return (false, [])
            }
            return (true, resumes)
        }
        for resume in resumes { resume() }
        if runs { runReadyCallbacks() }
    }

    /// The next message, or nil once the connection closed (a close handshake, either side's) with none
    /// left; throws for a failure (a protocol violation, the transport, a refused handshake).
    func nextMessage() async throws -> Message? {
        let id = state.withLock { inner -> UInt64 in
            inner.nextWaiterID += 1
            return inner.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Message?, any Error>) in
                let (ready, resumes): (Result<Message?, any Error>?, [@Sendable () -> Void]) = state.withLock { inner in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if let message = takeBuffered(&inner) {
                        return (.success(message), resumeReadingIfDrained(&inner))
                    }
                    if let ending = inner.ending {
                        if case .closed = ending { return (.success(nil), []) }
                        return (.failure(ending), [])
                    }
                    inner.waiters.append(.task(id: id, continuation))
                    return (nil, [])
                }
                if let ready { continuation.resume(with: ready) }
                for resume in resumes { resume() }
                // Reading resumed may have delivered to a completion handler waiting beside this reader.
                runReadyCallbacks()
            }
        } onCancel: {
            let continuation = state.withLock { inner -> CheckedContinuation<Message?, any Error>? in
                guard let index = inner.waiters.firstIndex(where: { if case .task(id, _) = $0 { true } else { false } }),
                      case .task(_, let continuation) = inner.waiters.remove(at: index) else { return nil }
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// The messages as they arrive: ends after a closing handshake (either side's), throws for a failure.
    public var messages: Messages { Messages(task: self) }

    /// An `AsyncSequence` of a task's messages (``messages``).
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = Message
        let task: WebSocketTask

        public struct AsyncIterator: AsyncIteratorProtocol {
            let task: WebSocketTask
            public mutating func next() async throws -> Message? { try await task.nextMessage() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(task: task) }
    }

}
