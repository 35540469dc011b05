// Sends a serialized request's exact bytes to a loopback server over a plain socket: the stand-in for
// the Core engine (not built yet) in the request-serialization integration tests.
import AFNetworking
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the server answered.
struct ServerReply: Sendable {
    let statusCode: Int
    let body: Data

    /// The body as a JSON object (httpbin's echo).
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw SenderError.unexpectedReply("not a JSON object: \(String(decoding: body, as: UTF8.self))")
        }
        return object
    }
}

enum SenderError: Error {
    case socket(String)
    case unexpectedReply(String)
}

/// One HTTP/1.1 exchange (`Connection: close`) carrying the request's method, path and query, every header
/// it has, and its body: `httpBody`, or a body source read in 64 KiB chunks exactly as the engine will
/// (`.wait` answers are honoured by sleeping: this is a test client, not the engine).
enum SerializedRequestSender {
    static func send(_ request: URLRequest, body: (any BodySource)? = nil, port: Int) async throws -> ServerReply {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try sendBlocking(request, body: body, port: port) })
            }
        }
    }

    private static func sendBlocking(_ request: URLRequest, body: (any BodySource)?, port: Int) throws -> ServerReply {
        guard let url = request.url else { throw SenderError.socket("request without URL") }
        let source: any BodySource = body ?? DataBodySource(request.httpBody ?? Data())
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var head = "\(request.httpMethod ?? "GET") \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        var headers = request.allHTTPHeaderFields ?? [:]
        if headers.keys.first(where: { $0.lowercased() == "content-length" }) == nil, let length = source.contentLength, length > 0 {
            headers["Content-Length"] = String(length)
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"

        let descriptor = try connect(port: port)
        defer { close(descriptor) }
        try sendAll(Data(head.utf8), to: descriptor)
        let reader = try source.makeReader()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        reading: while true {
            switch try reader.read(into: buffer) {
            case .end: break reading
            case .wait(let delay):
                let (seconds, attoseconds) = delay.components
                usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            case .bytes(let count): try sendAll(Data(buffer[0..<count]), to: descriptor)
            }
        }
        return try readReply(from: descriptor)
    }

    private static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SenderError.socket(String(cString: strerror(errno))) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(descriptor)
            throw SenderError.socket("connect: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    private static func sendAll(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw SenderError.socket("send: \(String(cString: strerror(errno)))") }
                sent += count
            }
        }
    }

    private static func readReply(from descriptor: Int32) throws -> ServerReply {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let headEnd = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw SenderError.unexpectedReply("no response head in \(received.count) bytes")
        }
        let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw SenderError.unexpectedReply(statusLine) }
        var body = Data(received[headEnd.upperBound...])
        for line in head.split(separator: "\r\n").dropFirst() {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2, pieces[0].lowercased() == "content-length",
               let length = Int(pieces[1].trimmingCharacters(in: .whitespaces)), length <= body.count {
                body = body.prefix(length)
            }
        }
        return ServerReply(statusCode: status, body: body)
    }
}
