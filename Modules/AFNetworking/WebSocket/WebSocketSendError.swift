/// Why ``WebSocketProtocol`` refused to make a frame. Nothing was sent and the state is unchanged.
public enum WebSocketSendError: Error, Sendable, Hashable {
    /// The connection is not open (the state given): no data or ping after a close frame (§5.5.1).
    case notOpen(WebSocketProtocol.State)
    /// A control frame's payload would be longer than 125 bytes (the length given) (§5.5).
    case controlPayloadTooLong(Int)
    /// A close code that may not be sent (§7.4; see ``WebSocketProtocol/isValidCloseCode(_:)``).
    case invalidCloseCode(UInt16)
    /// zlib could not compress the message (its return code, e.g. Z_MEM_ERROR when out of memory): the
    /// compression context is lost, so the connection should be closed (1011).
    case compressionFailed(Int32)
}
