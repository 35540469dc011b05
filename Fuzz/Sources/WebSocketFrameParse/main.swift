import AFNetworking
import Foundation
import FuzzSupport

/// Reads arbitrary bytes as what a WebSocket server sends, with and without permessage-deflate: must
/// never crash, must keep every message within the limit, and must give the same actions whether the
/// bytes come whole through `receive(_:)` or cut at a point the input chooses through
/// `append(_: UnsafeRawBufferPointer)` (whose payload bytes skip the parser when nothing waits in it).
@_cdecl("WebSocketFrameParse_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data, size > 2 else { return 0 }
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        check(Array(bytes.dropFirst(2)), options: bytes[0], splitAt: Int(bytes[1]) * 8)
        return 0
    }
}

/// A small limit, so inputs reach it (a compressed message may inflate past it).
private let limit = 4_096

/// Bit 0 of `options`: permessage-deflate negotiated; bit 1: the server resets its context per message;
/// bits 2-4: the server's window bits (8 + n, clamped to 15).
private func makeProtocol(_ options: UInt8) -> WebSocketProtocol {
    let compression = options & 1 == 0 ? nil
        : PerMessageDeflate.Parameters(serverNoContextTakeover: options & 2 != 0,
                                       serverMaxWindowBits: 8 + Int((options >> 2) & 7))
    // A fixed key: the two ways must write the same close and pong frames.
    return WebSocketProtocol(configuration: .init(maximumMessageSize: limit,
                                                  maskingKeySource: .fixed(WebSocketMaskingKey(1, 2, 3, 4)),
                                                  compression: compression))
}

private func check(_ stream: [UInt8], options: UInt8, splitAt point: Int) {
    var whole = makeProtocol(options)
    let wholeActions = whole.receive(stream)
    var split = makeProtocol(options)
    let cut = min(point, stream.count)
    var splitActions: [WebSocketProtocol.Action] = []
    for piece in [stream[..<cut], stream[cut...]] {
        piece.withUnsafeBytes { split.append($0) }
        splitActions += split.process(maximumMessages: .max)
    }
    precondition(wholeActions == splitActions, "cut at \(cut) changed the actions")
    // The failure recorded may differ when the text and the compressed data both go wrong (zlib does not
    // hand out the same output before an error for every cut); its close code, sent above, may not.
    precondition(whole.state == split.state && whole.failure?.closeCode == split.failure?.closeCode,
                 "cut at \(cut) changed the state")
    for action in wholeActions {
        switch action {
        case .deliver(.binary(let data)): precondition(data.count <= limit, "a message past the limit")
        case .deliver(.text(let text)): precondition(text.utf8.count <= limit, "a message past the limit")
        case .deliver(.ping(let data)), .deliver(.pong(let data)): precondition(data.count <= 125)
        default: break
        }
    }
    // Nothing is delivered after the connection closed.
    if let closed = wholeActions.firstIndex(where: { if case .deliver(.closed) = $0 { true } else { false } }) {
        precondition(!wholeActions[(closed + 1)...].contains { if case .deliver = $0 { true } else { false } },
                     "an event after the close")
    }
}
