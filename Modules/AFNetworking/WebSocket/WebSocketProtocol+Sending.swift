import Foundation

/// The frames a client sends (RFC 6455 §5.2-5.6, §7.1.2): messages (compressed with permessage-deflate
/// when it was negotiated), pings, and the close that starts the closing handshake.
extension WebSocketProtocol {
    /// The frame of a text message (compressed, with RSV1, when ``Configuration/compression`` is set).
    /// - Throws: ``WebSocketSendError/notOpen(_:)`` unless the state is ``State/open``;
    ///   ``WebSocketSendError/compressionFailed(_:)`` when zlib fails.
    public func send(text: String) throws(WebSocketSendError) -> [UInt8] {
        try sendData(WebSocketFrame(opcode: .text, payload: Data(text.utf8)))
    }

    /// The frame of a binary message (compressed, with RSV1, when ``Configuration/compression`` is set).
    /// - Throws: ``WebSocketSendError/notOpen(_:)`` unless the state is ``State/open``;
    ///   ``WebSocketSendError/compressionFailed(_:)`` when zlib fails.
    public func send(binary: Data) throws(WebSocketSendError) -> [UInt8] {
        try sendData(WebSocketFrame(opcode: .binary, payload: binary))
    }

    /// The frame of a ping carrying `payload` (default empty).
    /// - Throws: ``WebSocketSendError/notOpen(_:)`` unless open; ``WebSocketSendError/controlPayloadTooLong(_:)``
    ///   over 125 bytes.
    public func sendPing(_ payload: Data = Data()) throws(WebSocketSendError) -> [UInt8] {
        guard state == .open else { throw .notOpen(state) }
        guard payload.count <= 125 else { throw .controlPayloadTooLong(payload.count) }
        return encoder.encode(WebSocketFrame(opcode: .ping, payload: payload))
    }

    /// Starts the closing handshake (after the server's close arrived, the reply was sent already).
    /// Returns the close frame's bytes; the state becomes ``State/closingSent``.
    /// - Parameters:
    ///   - code: the status code (default 1000, normal closure); must be one
    ///     ``isValidCloseCode(_:)`` accepts.
    ///   - reason: at most 123 bytes of UTF-8 (default none).
    /// - Throws: ``WebSocketSendError/notOpen(_:)`` unless open, ``WebSocketSendError/invalidCloseCode(_:)``,
    ///   ``WebSocketSendError/controlPayloadTooLong(_:)`` when the reason is longer than 123 bytes.
    public mutating func close(code: UInt16 = 1000, reason: String = "") throws(WebSocketSendError) -> [UInt8] {
        guard state == .open else { throw .notOpen(state) }
        guard Self.isValidCloseCode(code) else { throw .invalidCloseCode(code) }
        let reasonBytes = Array(reason.utf8)
        guard reasonBytes.count <= 123 else { throw .controlPayloadTooLong(2 + reasonBytes.count) }
        state = .closingSent
        let payload = Self.closePayload(code: code, reason: reasonBytes)
        return encoder.encode(WebSocketFrame(opcode: .close, payload: Data(payload)))
    }

    private func sendData(_ frame: WebSocketFrame) throws(WebSocketSendError) -> [UInt8] {
        guard state == .open else { throw .notOpen(state) }
        guard let compressor else { return encoder.encode(frame) }
        let compressed = try compressor.compress(Array(frame.payload))
        return encoder.encode(WebSocketFrame(opcode: frame.opcode, payload: Data(compressed), rsv1: true))
    }
}
