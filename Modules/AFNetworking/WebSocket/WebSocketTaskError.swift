import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a ``WebSocketTask`` call failed.
public enum WebSocketTaskError: Error, Sendable, Equatable {
    /// The connection closed with this code and reason (the server's, ours, 1006 when the transport ended
    /// without a close frame): nothing more can be sent or received.
    case closed(code: UInt16, reason: String)
    /// The server broke RFC 6455; the connection was closed with the error's close code.
    case protocolViolation(WebSocketProtocolError)
    /// The server's answer to the handshake was not a WebSocket's (a status other than 101, a wrong or
    /// missing `Sec-WebSocket-Accept`, `Upgrade` or `Connection`, a subprotocol or extension that was not
    /// offered); the reason says which. The response is the task's ``WebSocketTask/response``.
    case handshakeFailed(String)
    /// The transport failed (the `URLError` of the connection, its TLS or its proxy: -1202 for a refused
    /// certificate).
    case transport(URLError)
    /// More bytes are queued to send than ``WebSocketTask/maximumQueuedBytes`` allows.
    case sendQueueFull(Int)
    /// The message cannot be sent (a close code or reason the protocol forbids).
    case invalidMessage(WebSocketSendError)
    /// The task was not resumed, or was cancelled before it opened.
    case notConnected
}
