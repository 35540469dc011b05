#if MCP
import Foundation

/// The messages received for the MCP client, at most `limit` waiting: the stream `receive()` returns.
///
/// A message that would make `limit + 1` wait finishes the stream with
/// ``MCPTransportError/receiveQueueFull(limit:)`` instead of growing memory without bound.
///
/// Threading: Sendable; deliver from any task.
struct MessageInbox: Sendable {
    let stream: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
        (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self,
                                                                bufferingPolicy: .bufferingOldest(self.limit))
    }

    /// Hands `message` to the client; false when the stream is finished (the transport disconnected,
    /// or the queue overflowed now or before).
    @discardableResult
    func deliver(_ message: Data) -> Bool {
        switch continuation.yield(message) {
        case .enqueued: return true
        case .dropped:
            continuation.finish(throwing: MCPTransportError.receiveQueueFull(limit: limit))
            return false
        case .terminated: return false
        @unknown default: return false
        }
    }

    /// Ends the stream: the client's loop ends without an error.
    func finish() { continuation.finish() }
}
#endif
