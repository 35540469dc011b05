import Foundation

/// A WebSocket connection's protocol, client role (RFC 6455 §5-7), without I/O: feed it the bytes
/// read (``receive(_:)``) and it returns what to do, in order: messages to deliver and bytes to write
/// (the automatic pong to a ping, the close reply, the close frame that fails the connection). The
/// `send` methods return the bytes of the frames to write.
///
/// It reassembles fragmented messages with control frames between fragments, checks text messages'
/// UTF-8 as the bytes arrive (failing at the first invalid byte, with 1007), bounds each message by
/// ``Configuration/maximumMessageSize`` (1009) and checks every framing rule (1002; see
/// ``WebSocketProtocolError``). A failure sends a close frame with its code when the closing handshake
/// has not started, delivers ``Event/closed(code:reason:)`` with that code, records it in ``failure``
/// and ends the protocol (``State/closed``): the transport should then be closed.
///
/// With ``Configuration/compression`` set (permessage-deflate, RFC 7692), a data message whose first
/// frame has RSV1 is decompressed as it arrives, bounded by ``Configuration/maximumMessageSize`` after
/// decompression (1009 as soon as it passes) and its text checked as UTF-8 once decompressed (1007);
/// invalid compressed data fails with 1007; RSV1 on a control frame or a continuation with 1002. Every
/// text and binary message sent is compressed, in one frame with RSV1.
///
/// Threading: a value; use it from one task at a time (the connection's). With compression, the zlib
/// streams are shared by copies (they are the connection's, which carries its context from message to
/// message): copies must stay on that one task too, and every frame a `send` method returns must be
/// written, in order (the server's decompressor expects each message the compressor saw).
public struct WebSocketProtocol: Sendable {
    /// Limits and sources.
    public struct Configuration: Sendable {
        /// The largest message, in bytes, all fragments together (default 1 MiB); also the largest frame.
        public var maximumMessageSize: Int
        /// Where frames' masking keys come from (default ``WebSocketMaskingKeySource/systemRandom``).
        public var maskingKeySource: WebSocketMaskingKeySource
        /// permessage-deflate's parameters as the handshake negotiated them
        /// (``PerMessageDeflate/negotiate(responseHeaderValue:)``); nil (the default) when off, and RSV1
        /// is then refused (1002).
        public var compression: PerMessageDeflate.Parameters?

        /// A configuration with the defaults above.
        public init(maximumMessageSize: Int = 1 << 20, maskingKeySource: WebSocketMaskingKeySource = .systemRandom,
                    compression: PerMessageDeflate.Parameters? = nil) {
            self.maximumMessageSize = maximumMessageSize
            self.maskingKeySource = maskingKeySource
            self.compression = compression
        }
    }

    /// Where the closing handshake is (§7.1).
    public enum State: Sendable, Hashable {
        /// Messages flow both ways.
        case open
        /// We sent a close frame and wait for the server's; its messages until then are still delivered.
        case closingSent
        /// The server's close frame arrived first and our reply was returned to write: the server closes
        /// the transport next (§7.1.1), reported with ``receiveEndOfStream()``.
        case closingReceived
        /// Both close frames were exchanged, the connection failed, or the transport ended.
        case closed
    }

    /// Something the server sent, for the application.
    public enum Event: Sendable, Hashable {
        /// A complete text message.
        case text(String)
        /// A complete binary message.
        case binary(Data)
        /// A ping (already answered by a pong in the same actions while open).
        case ping(Data)
        /// A pong.
        case pong(Data)
        /// The connection closed: the server's close code and reason; 1005 when its close frame carried
        /// no code, 1006 when the transport ended without one (§7.1.5), or the code of a failure.
        case closed(code: UInt16, reason: String)
    }

    /// What to do, in order.
    public enum Action: Sendable, Hashable {
        /// Hand this to the application.
        case deliver(Event)
        /// Write these bytes to the connection.
        case write([UInt8])
    }

    /// The limits and sources in force.
    public let configuration: Configuration
    /// Where the closing handshake is.
    public internal(set) var state: State = .open
    /// Why the connection failed, if it did (the close code sent is its ``WebSocketProtocolError/closeCode``).
    public private(set) var failure: WebSocketProtocolError?

    private var parser: WebSocketFrameParser
    let encoder: WebSocketFrameEncoder
    /// The frame whose payload is arriving.
    private var currentFrame: WebSocketFrameHead?
    /// A control frame's payload (at most 125 bytes).
    private var controlPayload: [UInt8] = []
    /// The opcode (text or binary) of the message being reassembled; nil between messages.
    private var messageOpcode: WebSocketOpcode?
    /// A compressed message's bytes, decompressed as they arrive.
    private var messageBytes: [UInt8] = []
    /// An uncompressed message's bytes, reassembled in the `Data` delivered (no copy at its end).
    private var messageData = Data()
    /// A message that came whole in one frame, as a view of the parser's bytes (between its payload and
    /// its end, with nothing appended to the parser in between).
    private var wholeMessage: ArraySlice<UInt8>?
    private var messageUTF8 = UTF8Validator()
    /// Whether the message being reassembled is compressed (RSV1 on its first frame).
    private var messageIsCompressed = false
    /// The message's payload bytes as they came (compressed or not), bounded like the message.
    private var messageWireByteCount = 0
    let compressor: PerMessageDeflateCompressor?
    private let decompressor: PerMessageDeflateDecompressor?

    /// The capacity of the buffer the message is reassembled (and decompressed) in, for tests of the bound.
    var messageBufferCapacity: Int { max(messageBytes.capacity, messageData.count) }

    /// A protocol in the open state (the opening handshake done) with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        // Control frames (125 bytes at most) pass whatever the message limit; RSV1 is permessage-deflate's.
        parser = WebSocketFrameParser(configuration: .init(maximumFrameSize: max(configuration.maximumMessageSize, 125),
                                                           allowedReservedBits: configuration.compression == nil ? [] : .rsv1))
        encoder = WebSocketFrameEncoder(maskingKeySource: configuration.maskingKeySource)
        compressor = configuration.compression.map(PerMessageDeflateCompressor.init(parameters:))
        decompressor = configuration.compression.map(PerMessageDeflateDecompressor.init(parameters:))
    }

    // MARK: Receiving

    /// Takes bytes read from the connection and returns what they call for. After the protocol is
    /// closed (or the server's close frame arrived), bytes are ignored: the server must send nothing
    /// after its close frame (§5.5.1).
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Action] {
        guard state == .open || state == .closingSent else { return [] }
        parser.append(bytes)
        return process(maximumMessages: .max)
    }

    /// Takes bytes read from the connection without reading them yet: ``process(maximumMessages:)``
    /// reads them, a few messages at a time, for a reader whose buffer must stay bounded (a few
    /// compressed bytes may inflate to a whole message each).
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard state == .open || state == .closingSent else { return }
        parser.append(bytes)
    }

    /// `append(_:)` for bytes in memory the caller owns: while a data frame's payload is arriving and
    /// nothing waits in the parser, its bytes go straight into the message (one copy instead of two).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard state == .open || state == .closingSent else { return }
        var rest = bytes
        if !rest.isEmpty, !messageIsCompressed, let frame = currentFrame, !frame.opcode.isControl,
           let remaining = parser.directPayloadRemaining {
            let count = min(remaining, rest.count)
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<count])
            var validator = messageUTF8
            // Invalid text takes the parser's way, where it fails the connection in order.
            if messageOpcode != .text || validator.consume(piece) {
                messageUTF8 = validator
                messageWireByteCount += count
                appendToMessage(count, frame) { $0(piece.assumingMemoryBound(to: UInt8.self)) }
                parser.skipPayload(count)
                rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            }
        }
        if !rest.isEmpty { parser.append(rest) }
    }

    /// Reads what the `append` methods took until `maximumMessages` data messages are delivered (or the bytes
    /// run out) and returns what they call for; the rest waits for the next call.
    public mutating func process(maximumMessages: Int) -> [Action] {
        var actions: [Action] = []
        var delivered = 0
        do {
            while delivered < maximumMessages, state == .open || state == .closingSent, let part = try parser.nextPiece() {
                let before = actions.count
                try handle(part, into: &actions)
                for action in actions[before...] {
                    if case .deliver(.text) = action { delivered += 1 }
                    if case .deliver(.binary) = action { delivered += 1 }
                }
            }
        } catch {
            fail(error, into: &actions)
        }
        return actions
    }

    /// Reports that the transport ended (EOF or a reset): delivers ``Event/closed(code:reason:)`` with
    /// 1006 unless the closing handshake had delivered one already.
    public mutating func receiveEndOfStream() -> [Action] {
        defer { state = .closed }
        switch state {
        case .open, .closingSent: return [.deliver(.closed(code: 1006, reason: ""))]
        case .closingReceived, .closed: return []
        }
    }

    private mutating func handle(_ part: WebSocketFrameParser.Piece, into actions: inout [Action])
        throws(WebSocketProtocolError) {
        switch part {
        case .head(let head):
            try begin(head)
        case .payload(let chunk):
            guard let frame = currentFrame else { return }
            if frame.opcode.isControl {
                controlPayload.append(contentsOf: chunk)
            } else if messageIsCompressed, let decompressor {
                messageWireByteCount += chunk.count
                try inflate(chunk, with: decompressor)
            } else {
                messageWireByteCount += chunk.count
                if messageOpcode == .text, !messageUTF8.consume(chunk) { throw .invalidUTF8 }
                if frame.fin, frame.opcode != .continuation, chunk.count == frame.payloadLength {
                    // A whole message in one frame, all of it read: made from the parser's bytes at once,
                    // without the reassembly buffer.
                    wholeMessage = chunk
                } else {
                    appendToMessage(chunk.count, frame) { chunk.withUnsafeBufferPointer($0) }
                }
            }
        case .end:
            guard let frame = currentFrame else { return }
            currentFrame = nil
            if frame.opcode.isControl {
                try finishControlFrame(frame.opcode, into: &actions)
            } else if frame.fin {
                if messageIsCompressed, let decompressor {
                    try inflate(nil, with: decompressor)
                }
                try finishMessage(into: &actions)
            }
        }
    }

    private mutating func begin(_ head: WebSocketFrameHead) throws(WebSocketProtocolError) {
        currentFrame = head
        // The parser let RSV1 through only with permessage-deflate, which allows it on a data message's
        // first frame alone (RFC 7692 §6.1).
        let compressed = head.reservedBits.contains(.rsv1)
        switch head.opcode {
        case .close, .ping, .pong:
            if compressed { throw .reservedBitsSet(.rsv1) }
            controlPayload.removeAll(keepingCapacity: true)
        case .continuation:
            if compressed { throw .reservedBitsSet(.rsv1) }
            guard messageOpcode != nil else { throw .unexpectedContinuation }
            // Subtracted, not added: no overflow whatever the lengths. Compressed bytes count too, so a
            // message that inflates to little cannot stream without end.
            guard head.payloadLength <= configuration.maximumMessageSize - messageWireByteCount else {
                throw .messageTooLarge(limit: configuration.maximumMessageSize)
            }
        case .text, .binary:
            guard messageOpcode == nil else { throw .expectedContinuation }
            messageOpcode = head.opcode
            messageIsCompressed = compressed
            messageWireByteCount = 0
            messageBytes.removeAll(keepingCapacity: false)
            messageData = Data()
            messageUTF8 = UTF8Validator()
        }
    }

    /// Appends `count` uncompressed payload bytes of `frame` (given by `bytes`) to the message, room for the
    /// whole frame made at its first piece (the frame's length was checked against the limit).
    private mutating func appendToMessage(_ count: Int, _ frame: WebSocketFrameHead,
                                          _ bytes: ((UnsafeBufferPointer<UInt8>) -> Void) -> Void) {
        if messageData.isEmpty { messageData.reserveCapacity(frame.payloadLength) }
        bytes { messageData.append($0) }
    }

    /// Inflates `chunk` of the message (nil: the message's end) into the message, then checks what it
    /// appended as UTF-8 (text), also when inflating failed: text that goes wrong within the bytes kept
    /// fails with 1007 before the limit's 1009 or damaged data's 1007, whichever reads the bytes came in
    /// (one inflate call may run past both).
    private mutating func inflate(_ chunk: ArraySlice<UInt8>?, with decompressor: PerMessageDeflateDecompressor)
        throws(WebSocketProtocolError) {
        let start = messageBytes.count
        do throws(WebSocketProtocolError) {
            if let chunk {
                try decompressor.decompress(chunk, appendingTo: &messageBytes, limit: configuration.maximumMessageSize)
            } else {
                try decompressor.finishMessage(appendingTo: &messageBytes, limit: configuration.maximumMessageSize)
            }
        } catch {
            try validateText(from: start)
            throw error
        }
        try validateText(from: start)
    }

    /// Checks the decompressed bytes from `start` on as UTF-8 when the message is text.
    private mutating func validateText(from start: Int) throws(WebSocketProtocolError) {
        if messageOpcode == .text, !messageUTF8.consume(messageBytes[start...]) { throw .invalidUTF8 }
    }

    private mutating func finishMessage(into actions: inout [Action]) throws(WebSocketProtocolError) {
        let opcode = messageOpcode
        messageOpcode = nil
        if opcode == .text {
            // A code point cut off by the message's end is invalid too.
            guard messageUTF8.isAtBoundary else { throw .invalidUTF8 }
        }
        if let whole = wholeMessage {
            wholeMessage = nil
            actions.append(.deliver(opcode == .text ? .text(String(decoding: whole, as: UTF8.self)) : .binary(Data(whole))))
            return
        }
        if messageIsCompressed {
            let bytes = messageBytes
            messageBytes = []
            actions.append(.deliver(opcode == .text ? .text(String(decoding: bytes, as: UTF8.self)) : .binary(Data(bytes))))
        } else {
            let data = messageData
            messageData = Data()
            actions.append(.deliver(opcode == .text ? .text(String(decoding: data, as: UTF8.self)) : .binary(data)))
        }
    }

    private mutating func finishControlFrame(_ opcode: WebSocketOpcode, into actions: inout [Action])
        throws(WebSocketProtocolError) {
        let payload = controlPayload
        switch opcode {
        case .ping:
            actions.append(.deliver(.ping(Data(payload))))
            // No pong once we sent close: only the close reply may follow it.
            if state == .open {
                actions.append(.write(encoder.encode(WebSocketFrame(opcode: .pong, payload: Data(payload)))))
            }
        case .pong:
            actions.append(.deliver(.pong(Data(payload))))
        case .close:
            let (code, reason) = try Self.parseClosePayload(payload)
            if state == .open {
                // Echo the code (§5.5.1); an empty close is answered by an empty one.
                let reply = code.map { Self.closePayload(code: $0, reason: []) } ?? []
                actions.append(.write(encoder.encode(WebSocketFrame(opcode: .close, payload: Data(reply)))))
                state = .closingReceived
            } else {
                state = .closed
            }
            actions.append(.deliver(.closed(code: code ?? 1005, reason: reason)))
        default:
            break
        }
    }

    /// A close frame's code (nil when the payload is empty) and reason, checked (§5.5.1, §7.4).
    static func parseClosePayload(_ payload: [UInt8]) throws(WebSocketProtocolError) -> (UInt16?, String) {
        if payload.isEmpty { return (nil, "") }
        guard payload.count >= 2 else { throw .truncatedCloseCode }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard isValidCloseCode(code) else { throw .invalidCloseCode(code) }
        let reason = payload.dropFirst(2)
        var validator = UTF8Validator()
        guard validator.consume(reason), validator.isAtBoundary else { throw .invalidUTF8 }
        return (code, String(decoding: reason, as: UTF8.self))
    }

    /// Whether `code` may appear in a close frame (§7.4): 1000-1003, 1007-1014 (IANA's registry, 1012-1014
    /// added after the RFC), and 3000-4999 (libraries, frameworks, applications).
    public static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    static func closePayload(code: UInt16, reason: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)] + reason
    }

    private mutating func fail(_ error: WebSocketProtocolError, into actions: inout [Action]) {
        if state == .open {
            let payload = Self.closePayload(code: error.closeCode, reason: [])
            actions.append(.write(encoder.encode(WebSocketFrame(opcode: .close, payload: Data(payload)))))
        }
        failure = error
        state = .closed
        actions.append(.deliver(.closed(code: error.closeCode, reason: "")))
    }
}
