// websocketkit-peer: Vapor's websocket-kit client (SwiftNIO) on one of the WebSocket benchmark's workloads,
// against the benchmark's server (Integration/servers/websocket_server.py), and prints one line:
//   RESULT <messages> <seconds> <peak-rss-bytes> <cpu-seconds>
// Usage: websocketkit-peer <workload> <base-url> <count> <size> [<sockets> <window>]
//   rt      one socket on /echo: <count> binary messages of <size> bytes, each sent when the previous one
//           came back (after 100 untimed round trips).
//   stream  one socket on /count?n=<count>&size=<size>: the server's messages counted until its close
//           (the handshake inside the time).
//   fan     <sockets> sockets on /echo, opened (and one untimed round trip each) before the clock starts,
//           then <count> echoes each with <window> in flight.
// The client is used as its README shows: callbacks on its event loop (onBinary sends the next message),
// on the shared MultiThreadedEventLoopGroup (one thread per core).
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PeerSupport
import WebSocketKit

let arguments = CommandLine.arguments
guard arguments.count >= 5, let count = Int(arguments[3]), let size = Int(arguments[4]), count > 0, size >= 0 else {
    FileHandle.standardError.write(Data("usage: websocketkit-peer rt|stream|fan <base-url> <count> <size> [<sockets> <window>]\n".utf8))
    exit(2)
}
let workload = arguments[1]
let base = arguments[2]
let sockets = arguments.count > 5 ? Int(arguments[5]) ?? 1 : 1
let window = arguments.count > 6 ? Int(arguments[6]) ?? 1 : 1
let group = MultiThreadedEventLoopGroup.singleton
let configuration = WebSocketClient.Configuration(maxFrameSize: 1 << 20)  // the default, 16 KiB, refuses 64 KiB
let payload = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) })

struct WrongMessage: Error {}

/// A socket's echo loop: `total` messages, `window` in flight. Touched only on the socket's event loop.
final class EchoDriver: @unchecked Sendable {
    // @unchecked Sendable: every field is used on `socket.eventLoop` only (onBinary and start run there).
    let socket: WebSocket
    let total: Int
    let window: Int
    var sent = 0
    var received = 0
    let done: EventLoopPromise<Void>
    let payload: [UInt8]

    init(socket: WebSocket, total: Int, window: Int, payload: [UInt8]) {
        self.socket = socket
        self.payload = payload
        self.total = total
        self.window = window
        done = socket.eventLoop.makePromise()
    }

    /// Installs the callback and sends the first window (any thread).
    func start() -> EventLoopFuture<Void> {
        socket.eventLoop.execute { [self] in
            socket.onBinary { [self] socket, buffer in
                guard buffer.readableBytes == payload.count else {
                    done.fail(WrongMessage())
                    return
                }
                received += 1
                if sent < total {
                    sent += 1
                    socket.send(payload)
                }
                if received == total { done.succeed(()) }
            }
            while sent < min(window, total) {
                sent += 1
                socket.send(payload)
            }
        }
        return done.futureResult
    }
}

/// Opens a socket on `path`; `onUpgrade` runs on its event loop before any message is read.
func connect(_ path: String, onUpgrade: @escaping @Sendable (WebSocket) -> Void = { _ in }) -> EventLoopFuture<WebSocket> {
    let promise = group.any().makePromise(of: WebSocket.self)
    WebSocket.connect(to: base + path, configuration: configuration, on: group) { socket in
        onUpgrade(socket)
        promise.succeed(socket)
    }.whenFailure { promise.fail($0) }
    return promise.futureResult
}

func closeAll(_ sockets: [WebSocket]) throws {
    for socket in sockets { try socket.close(code: .normalClosure).wait() }
}

var cpuStart = 0.0
var start = ContinuousClock.now
var messages = 0
switch workload {
case "rt":
    let socket = try connect("/echo").wait()
    try EchoDriver(socket: socket, total: 100, window: 1, payload: payload).start().wait()
    cpuStart = cpuSeconds()
    start = .now
    try EchoDriver(socket: socket, total: count, window: 1, payload: payload).start().wait()
    messages = count
    let elapsed = ContinuousClock.now - start
    let cpu = cpuSeconds() - cpuStart
    try closeAll([socket])
    print("RESULT \(messages) \(seconds(elapsed)) \(peakResidentBytes()) \(cpu)")
case "stream":
    let counter = NIOLockedValueBox((received: 0, wrong: 0))
    let expected = size
    cpuStart = cpuSeconds()
    start = .now
    let socket = try connect("/count?n=\(count)&size=\(size)") { socket in
        socket.onBinary { _, buffer in
            counter.withLockedValue {
                if buffer.readableBytes == expected { $0.received += 1 } else { $0.wrong += 1 }
            }
        }
    }.wait()
    try socket.onClose.wait()
    let elapsed = ContinuousClock.now - start
    let cpu = cpuSeconds() - cpuStart
    let (received, wrong) = counter.withLockedValue { ($0.received, $0.wrong) }
    guard received == count, wrong == 0 else {
        FileHandle.standardError.write(Data("websocketkit-peer: \(received) of \(count) messages, \(wrong) wrong\n".utf8))
        exit(1)
    }
    print("RESULT \(received) \(seconds(elapsed)) \(peakResidentBytes()) \(cpu)")
case "fan":
    let opened = try EventLoopFuture.whenAllSucceed((0..<sockets).map { _ in connect("/echo") }, on: group.any()).wait()
    try EventLoopFuture.andAllSucceed(opened.map { EchoDriver(socket: $0, total: 1, window: 1, payload: payload).start() }, on: group.any()).wait()
    cpuStart = cpuSeconds()
    start = .now
    try EventLoopFuture.andAllSucceed(opened.map { EchoDriver(socket: $0, total: count, window: window, payload: payload).start() },
                                      on: group.any()).wait()
    let elapsed = ContinuousClock.now - start
    let cpu = cpuSeconds() - cpuStart
    try closeAll(opened)
    print("RESULT \(sockets * count) \(seconds(elapsed)) \(peakResidentBytes()) \(cpu)")
default:
    FileHandle.standardError.write(Data("websocketkit-peer: unknown workload \(workload)\n".utf8))
    exit(2)
}
