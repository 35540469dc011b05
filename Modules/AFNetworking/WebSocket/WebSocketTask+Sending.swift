import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sending a task's messages and pings: each frame made under the task's lock and queued on the
/// connection within ``WebSocketTask/maximumQueuedBytes``.
extension WebSocketTask {
    /// Queues `message` to be sent (frames made now, written in order).
    /// - Throws: ``WebSocketTaskError``: the connection's ending once it ended, ``WebSocketTaskError/sendQueueFull(_:)``.
    public func send(_ message: Message) async throws {
        try enqueueMessage(message)
    }

    func enqueueMessage(_ message: Message) throws(WebSocketTaskError) {
        try enqueue(bound: message.byteCount, isMessage: true) { machine throws(WebSocketSendError) in
            switch message {
            case .string(let text): try machine.send(text: text)
            case .data(let data): try machine.send(binary: data)
            }
        }
    }

    /// ``send(_:)`` with a completion handler, called once the message's frame is queued for the socket
    /// (nil) or refused (the error), before this method returns, on the calling thread.
    public func send(_ message: Message, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        do {
            try enqueueMessage(message)
            completionHandler(nil)
        } catch {
            completionHandler(error)
        }
    }

    /// Sends a ping; `pongReceiveHandler` runs (on the engine thread) when the pong arrives, with nil,
    /// or with the connection's ending if it ends first.
    public func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
        do {
            try enqueue(bound: 0) { machine throws(WebSocketSendError) in try machine.sendPing() }
            state.withLock { $0.pongHandlers.append(pongReceiveHandler) }
        } catch {
            pongReceiveHandler(error)
        }
    }

    /// Makes a frame and queues it. `bound`: the message's bytes, so that the room for its frame (at most
    /// the message, the frame head and deflate's few bytes of overhead) is checked before it is made: with
    /// context takeover a compressor moves on with every message it makes, so a frame made must be sent.
    func enqueue(bound: Int, isMessage: Bool = false,
                         _ frame: (WebSocketProtocol) throws(WebSocketSendError) -> [UInt8]) throws(WebSocketTaskError) {
        let frameBound = bound + bound / 1_000 + 64
        try state.withLock { inner throws(WebSocketTaskError) in
            if let ending = inner.ending { throw ending }
            guard let machine = inner.machine else { throw .notConnected }
            if inner.isOpen, let connection = inner.connection,
               connection.queuedByteCount + frameBound > inner.maximumQueuedBytes {
                throw .sendQueueFull(connection.queuedByteCount + frameBound)
            }
            let bytes: [UInt8]
            do throws(WebSocketSendError) { bytes = try frame(machine) } catch { throw .invalidMessage(error) }
            if isMessage { inner.messagesSent += 1 }
            if inner.isOpen, let connection = inner.connection {
                // Every send and every pong is queued under this lock, and the engine only drains the
                // queue, so the room checked above is still there unless the connection is closing.
                guard connection.send(bytes) else { throw .notConnected }
                return
            }
            // Before the handshake completes: written once it does.
            guard inner.pendingBytes.count + bytes.count <= inner.maximumQueuedBytes else {
                throw .sendQueueFull(inner.pendingBytes.count + bytes.count)
            }
            inner.pendingBytes += bytes
        }
    }
}
