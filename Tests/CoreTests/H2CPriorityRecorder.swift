// A minimal cleartext HTTP/2 server (h2c by HTTP/1.1 Upgrade) on 127.0.0.1 that answers every request
// with an empty 200 and records the priority each request stream carried: enough HTTP/2 framing to see
// what libcurl puts on the wire, no HPACK decoding (the request headers are not needed).
import AFProtocols
import Foundation
@testable import AFCore

final class H2CPriorityRecorder: Sendable {
    /// A request stream as it arrived.
    struct Stream: Equatable {
        let identifier: UInt32
        /// The weight (1...256) of the HEADERS frame's priority block, or of a PRIORITY frame sent for
        /// the stream; nil when neither came (the default weight, 16).
        let weight: Int?
    }

    let port: Int
    private let listener: Int32
    private let recorded = Protected<[Stream]>([])
    private let connections = Protected<[Int32]>([])

    var streams: [Stream] { recorded.withLock { $0 } }

    init() throws {
        (listener, port) = try LoopbackServer.listen(backlog: 16)
        Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                connections.withLock { $0.append(client) }
                Thread { [self] in
                    serve(client)
                    // Closed under the lock stop() shuts sockets down with: a closed number may be reused.
                    connections.withLock { open in
                        open.removeAll { $0 == client }
                        close(client)
                    }
                }.start()
            }
        }.start()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        connections.withLock { open in
            for client in open { shutdown(client, Int32(SHUT_RDWR)) }
        }
    }

    // MARK: One connection

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private enum FrameType: UInt8 { case data = 0, headers = 1, priority = 2, settings = 4, ping = 6, goaway = 7 }
    private static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4, padded: UInt8 = 0x8, priorityFlag: UInt8 = 0x20
    /// HPACK's static table entry 8, `:status: 200`, as an indexed header field.
    private static let status200: [UInt8] = [0x88]

    private func serve(_ client: Int32) {
        var input = Connection(descriptor: client)
        // The HTTP/1.1 request asking to upgrade; its response comes on stream 1 after the switch.
        guard let head = input.readUntil(Array("\r\n\r\n".utf8)),
              String(decoding: head, as: UTF8.self).lowercased().contains("upgrade: h2c") else { return }
        input.write(Array("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".utf8))
        input.write(frame(.settings, flags: 0, stream: 0, payload: []))
        guard input.read(count: Self.preface.count) == Self.preface else { return }
        recorded.withLock { $0.append(Stream(identifier: 1, weight: nil)) }
        input.write(frame(.headers, flags: Self.endHeaders | Self.endStream, stream: 1, payload: Self.status200))

        while let header = input.read(count: 9) {
            let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            let type = header[3], flags = header[4]
            let stream = (UInt32(header[5]) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8]))
                & 0x7FFF_FFFF
            guard let payload = input.read(count: length) else { return }
            switch FrameType(rawValue: type) {
            case .settings where flags & 0x1 == 0:
                input.write(frame(.settings, flags: 0x1, stream: 0, payload: []))
            case .ping where flags & 0x1 == 0:
                input.write(frame(.ping, flags: 0x1, stream: 0, payload: payload))
            case .headers:
                var weight: Int?
                if flags & Self.priorityFlag != 0 {
                    let offset = flags & Self.padded != 0 ? 1 : 0
                    weight = Int(payload[offset + 4]) + 1
                }
                recorded.withLock { $0.append(Stream(identifier: stream, weight: weight)) }
                input.write(frame(.headers, flags: Self.endHeaders | Self.endStream, stream: stream, payload: Self.status200))
            case .priority:
                let weight = Int(payload[4]) + 1
                recorded.withLock { streams in
                    if let index = streams.lastIndex(where: { $0.identifier == stream }) {
                        streams[index] = Stream(identifier: stream, weight: weight)
                    } else {
                        streams.append(Stream(identifier: stream, weight: weight))
                    }
                }
            case .goaway:
                return
            default:
                break
            }
        }
    }

    private func frame(_ type: FrameType, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type.rawValue, flags,
                UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)]
            + payload
    }

    /// Buffered blocking reads and writes on one socket.
    private struct Connection {
        let descriptor: Int32
        private var buffer: [UInt8] = []

        init(descriptor: Int32) { self.descriptor = descriptor }

        private mutating func fill() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { return false }
            buffer += chunk[0..<count]
            return true
        }

        mutating func read(count: Int) -> [UInt8]? {
            while buffer.count < count { guard fill() else { return nil } }
            defer { buffer.removeFirst(count) }
            return Array(buffer[0..<count])
        }

        mutating func readUntil(_ terminator: [UInt8]) -> [UInt8]? {
            while true {
                if buffer.count >= terminator.count {
                    for start in 0...(buffer.count - terminator.count)
                    where Array(buffer[start..<(start + terminator.count)]) == terminator {
                        defer { buffer.removeFirst(start + terminator.count) }
                        return Array(buffer[0..<start])
                    }
                }
                guard fill() else { return nil }
            }
        }

        func write(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
