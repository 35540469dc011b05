// A minimal HTTP/1.0 client over a plain TCP socket, for probing servers and observing faults exactly.
import Foundation

/// What a server sent on one raw HTTP/1.0 exchange, exactly as received.
public struct RawHTTPResponse: Sendable {
    /// How the exchange ended.
    public enum Ending: Sendable, Equatable {
        /// The server closed the connection (orderly close or reset).
        case closedByServer
        /// The timeout passed while the connection was still open.
        case timedOut
    }

    /// Every byte the server sent, head and body.
    public let received: Data
    /// How the exchange ended.
    public let ending: Ending
    /// The status code, or `nil` when the head (status line and headers) did not arrive complete.
    public let statusCode: Int?
    /// Header fields with lowercased names (the last one wins for repeated names); empty without a head.
    public let headers: [String: String]
    /// The bytes after the head, without any decoding (HTTP/1.0 responses are not chunked).
    public let body: Data

    /// The `Content-Length` the server announced, if any.
    public var contentLength: Int? { headers["content-length"].flatMap { Int($0) } }

    init(received: Data, ending: Ending) {
        self.received = received
        self.ending = ending
        let separator = Data("\r\n\r\n".utf8)
        guard let headEnd = received.range(of: separator) else {
            statusCode = nil
            headers = [:]
            body = Data()
            return
        }
        let head = String(decoding: received[received.startIndex..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        statusCode = statusLine.count >= 2 ? Int(statusLine[1]) : nil
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        headers = fields
        body = Data(received[headEnd.upperBound...])
    }
}

/// Sends one HTTP/1.0 request to a loopback port and reads until the server closes or a timeout passes.
///
/// Independent of the modules under test, so harness readiness checks and smoke tests can observe
/// servers directly (for example that `/drop` really closes the connection short of its Content-Length).
public enum RawHTTPClient {
    /// Sends `method path HTTP/1.0` with `Host: 127.0.0.1:<port>` and `headers` to 127.0.0.1:`port`,
    /// then reads until the server closes the connection or `timeout` (counted from the start) passes.
    /// Throws when the connection cannot be made or the request cannot be sent.
    public static func request(
        _ method: String = "GET",
        path: String,
        port: Int,
        headers: [String: String] = [:],
        timeout: Duration = .seconds(10)
    ) async throws(HarnessError) -> RawHTTPResponse {
        let result = await runBlocking {
            exchangeBlocking(method: method, path: path, port: port, headers: headers, timeout: timeout)
        }
        return try result.get()
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` (blocking, loopback only).
    static func acceptsConnections(port: Int) -> Bool {
        guard let fd = try? connectedSocket(port: port).get() else { return false }
        close(fd)
        return true
    }

    /// The blocking exchange behind `request`.
    static func exchangeBlocking(
        method: String, path: String, port: Int, headers: [String: String], timeout: Duration
    ) -> Result<RawHTTPResponse, HarnessError> {
        let deadline = ContinuousClock.now + timeout
        let fd: Int32
        switch connectedSocket(port: port) {
        case .success(let socket): fd = socket
        case .failure(let error): return .failure(error)
        }
        defer { close(fd) }

        var request = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 {
                return .failure(.setupFailed(step: "sending \(method) \(path) to port \(port)",
                                             reason: String(cString: strerror(errno))))
            }
            sent += count
        }

        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return .success(RawHTTPResponse(received: received, ending: .timedOut)) }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready == 0 { continue }  // the deadline check above ends the loop
            if ready < 0 {
                if errno == EINTR { continue }
                return .success(RawHTTPResponse(received: received, ending: .closedByServer))
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return .success(RawHTTPResponse(received: received, ending: .closedByServer))
            }
        }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`.
    private static func connectedSocket(port: Int) -> Result<Int32, HarnessError> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            return .failure(.setupFailed(step: "creating a socket", reason: String(cString: strerror(errno))))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(.setupFailed(step: "connecting to 127.0.0.1:\(port)", reason: reason))
        }
        return .success(fd)
    }
}
