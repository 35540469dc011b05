@testable import AFWebSocket
import Foundation

/// RFC 6455 §5.7's masking key.
let testKey = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)

/// A protocol whose frames are masked with ``testKey``, with permessage-deflate when `compression` is set.
func makeProtocol(maximumMessageSize: Int = 1 << 20, compression: PerMessageDeflate.Parameters? = nil) -> WebSocketProtocol {
    WebSocketProtocol(configuration: .init(maximumMessageSize: maximumMessageSize, maskingKeySource: .fixed(testKey),
                                           compression: compression))
}

/// A frame as a server sends it: unmasked, the shortest length form unless `lengthForm` forces 126 or 127.
func serverFrame(_ opcode: UInt8, _ payload: [UInt8] = [], fin: Bool = true, rsv: UInt8 = 0,
                 lengthForm: UInt8? = nil) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
    let count = payload.count
    let form = lengthForm ?? (count <= 125 ? UInt8(count) : count <= 0xFFFF ? 126 : 127)
    bytes.append(form)
    if form == 126 {
        bytes += [UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
    } else if form == 127 {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(UInt64(count) >> UInt64(shift) & 0xFF)) }
    }
    return bytes + payload
}

func serverFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8] = [], fin: Bool = true) -> [UInt8] {
    serverFrame(opcode.rawValue, payload, fin: fin)
}

/// A close frame from the server with `code` and `reason`.
func serverClose(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
    serverFrame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
}

/// A client frame decoded: header fields, and the payload unmasked with the key it carries.
struct ClientFrame: Equatable {
    var fin: Bool
    var opcode: UInt8
    var masked: Bool
    var key: [UInt8]
    var payload: [UInt8]
}

func decodeClientFrame(_ bytes: [UInt8]) -> ClientFrame? {
    guard bytes.count >= 2 else { return nil }
    var index = 2
    var length = Int(bytes[1] & 0x7F)
    if length == 126 {
        length = Int(bytes[2]) << 8 | Int(bytes[3]); index = 4
    } else if length == 127 {
        length = 0
        for offset in 0..<8 { length = length << 8 | Int(bytes[2 + offset]) }
        index = 10
    }
    let masked = bytes[1] & 0x80 != 0
    let key = masked ? Array(bytes[index..<index + 4]) : [0, 0, 0, 0]
    if masked { index += 4 }
    guard bytes.count == index + length else { return nil }
    let payload = bytes[index...].enumerated().map { $0.element ^ key[$0.offset & 3] }
    return ClientFrame(fin: bytes[0] & 0x80 != 0, opcode: bytes[0] & 0x0F, masked: masked, key: key, payload: payload)
}

/// The close frame the client sends for `code` (masked with ``testKey``), no reason.
func clientClose(_ code: UInt16) -> [UInt8] {
    WebSocketFrameEncoder().encode(WebSocketFrame(opcode: .close, payload: Data([UInt8(code >> 8), UInt8(code & 0xFF)])),
                                   maskingKey: testKey)
}

func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
    WebSocketFrameEncoder().encode(WebSocketFrame(opcode: opcode, payload: Data(payload)), maskingKey: testKey)
}

/// What `bytes` call for, fed whole and fed one byte at a time; the two must agree (checked by callers).
func receiveWholeAndBytewise(_ bytes: [UInt8], maximumMessageSize: Int = 1 << 20)
    -> (whole: [WebSocketProtocol.Action], bytewise: [WebSocketProtocol.Action]) {
    var whole = makeProtocol(maximumMessageSize: maximumMessageSize)
    var bytewise = makeProtocol(maximumMessageSize: maximumMessageSize)
    let wholeActions = whole.receive(bytes)
    var bytewiseActions: [WebSocketProtocol.Action] = []
    for byte in bytes { bytewiseActions += bytewise.receive([byte]) }
    return (wholeActions, bytewiseActions)
}

/// The actions of a connection failed with `code`: our close frame, then the closed event.
func failure(_ code: UInt16) -> [WebSocketProtocol.Action] {
    [.write(clientClose(code)), .deliver(.closed(code: code, reason: ""))]
}

/// Frames the parser reads from `bytes`, each assembled from its parts; the error, if one was thrown.
func parseFrames(_ bytes: [UInt8], configuration: WebSocketFrameParser.Configuration = .init(), chunkSize: Int = .max)
    -> (frames: [WebSocketFrame], error: WebSocketProtocolError?) {
    var parser = WebSocketFrameParser(configuration: configuration)
    var frames: [WebSocketFrame] = []
    var head: WebSocketFrameHead?
    var payload: [UInt8] = []
    var start = 0
    repeat {
        let end = min(bytes.count, start + min(chunkSize, bytes.count - start))
        parser.append(bytes[start..<end])
        start = end
        do {
            while let part = try parser.nextPart() {
                switch part {
                case .head(let next): head = next; payload = []
                case .payload(let chunk): payload += chunk
                case .end:
                    if let head {
                        frames.append(WebSocketFrame(opcode: head.opcode, payload: Data(payload), fin: head.fin,
                                                     rsv1: head.reservedBits.contains(.rsv1),
                                                     rsv2: head.reservedBits.contains(.rsv2),
                                                     rsv3: head.reservedBits.contains(.rsv3)))
                    }
                }
            }
        } catch {
            return (frames, error)
        }
    } while start < bytes.count
    return (frames, nil)
}

extension WebSocketProtocol {
    /// The actions of `stream` taken in two pieces cut at `cut`, each through `append(_: UnsafeRawBufferPointer)`
    /// (the way the task feeds it), then processed.
    mutating func receiveDirectly(_ stream: [UInt8], cutAt cut: Int) -> [Action] {
        var actions: [Action] = []
        for piece in [stream[..<cut], stream[cut...]] {
            piece.withUnsafeBytes { append($0) }
            actions += process(maximumMessages: .max)
        }
        return actions
    }
}
