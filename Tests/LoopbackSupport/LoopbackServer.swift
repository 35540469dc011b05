// A small HTTP/1.1 server on 127.0.0.1 for the engine's unit tests: real sockets, keep-alive, and a few
// fixed routes (including faults). Integration tests use the harness's httpbin and nginx instead.
import AFProtocols
import Foundation

package final class LoopbackServer: Sendable {
    package let port: Int
    private let listener: Int32
    private let stopped = Protected(false)
    private let connections = Protected<Set<Int32>>([])
    private let accepted = Protected(0)
    private let flakyCounts = Protected<[String: Int]>([:])

    /// How many requests `/flaky/<key>/...` received for `key`.
    package func requestCount(flaky key: String) -> Int { flakyCounts.withLock { $0[key] ?? 0 } }

    /// How many connections the server accepted so far (each client connection once, however many
    /// requests it carried).
    package var acceptedConnectionCount: Int { accepted.withLock { $0 } }

    /// Listens on `port` (0: a free one the kernel picks).
    package init(port: Int = 0) throws {
        (listener, self.port) = try Self.listen(backlog: 512, port: port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// A listening TCP socket on 127.0.0.1 and its port: `port`, or (0) the free one the kernel gave it
    /// (shared by the test servers).
    package static func listen(backlog: Int32, port: Int = 0) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    package func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for descriptor in connections.withLock({ $0 }) { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            if client < 0 { if stopped.withLock({ $0 }) { return } else { continue } }
            connections.withLock { _ = $0.insert(client) }
            accepted.withLock { $0 += 1 }
            let thread = Thread { [self] in
                serve(client)
                connections.withLock { _ = $0.remove(client) }
                close(client)
            }
            thread.start()
        }
    }

    private struct Request {
        var method = ""
        var path = ""
        var headers: [String: String] = [:]
        /// The header lines as sent, in order (repeated names kept).
        var headerLines: [String] = []
        var body = Data()
    }

    private func serve(_ client: Int32) {
        var buffer = Data()
        while let request = readRequest(client, buffer: &buffer) {
            if !respond(to: request, on: client) { return }
        }
    }

    private func readRequest(_ client: Int32, buffer: inout Data) -> Request? {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            guard let chunk = receive(client) else { return nil }
            buffer.append(chunk)
        }
        let headerEnd = buffer.range(of: separator)!
        let head = String(decoding: buffer[buffer.startIndex..<headerEnd.lowerBound], as: UTF8.self)
        buffer = Data(buffer[headerEnd.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var request = Request(method: String(requestLine[0]), path: String(requestLine[1]))
        request.headerLines = lines
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            request.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if request.headers["transfer-encoding"]?.lowercased() == "chunked" {
            // Decode a chunked body.
            while true {
                while buffer.range(of: Data("\r\n".utf8)) == nil {
                    guard let chunk = receive(client) else { return nil }
                    buffer.append(chunk)
                }
                let lineEnd = buffer.range(of: Data("\r\n".utf8))!
                let sizeText = String(decoding: buffer[buffer.startIndex..<lineEnd.lowerBound], as: UTF8.self)
                let size = Int(sizeText.split(separator: ";").first.map(String.init) ?? "0", radix: 16) ?? 0
                buffer = Data(buffer[lineEnd.upperBound...])
                while buffer.count < size + 2 {
                    guard let chunk = receive(client) else { return nil }
                    buffer.append(chunk)
                }
                request.body.append(buffer.prefix(size))
                buffer = Data(buffer.dropFirst(size + 2))
                if size == 0 { break }
            }
        } else {
            let length = Int(request.headers["content-length"] ?? "0") ?? 0
            while buffer.count < length {
                guard let chunk = receive(client) else { return nil }
                buffer.append(chunk)
            }
            request.body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
        }
        return request
    }

    private func receive(_ client: Int32) -> Data? {
        var bytes = [UInt8](repeating: 0, count: 65536)
        let count = recv(client, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Data(bytes[0..<count])
    }

    private func send(_ client: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Foundation.send(client, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    private func head(_ status: Int, _ headers: [(String, String)]) -> Data {
        var text = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    private func reply(_ client: Int32, status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) -> Bool {
        send(client, head(status, headers + [("Content-Length", "\(body.count)")]) + body)
    }

    /// The head of an event stream: no length, the body ends when the connection closes.
    private static let eventStreamHeaders = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                                             ("Connection", "close")]

    /// The gates of `/events-gated/<name>`.
    package let gates = EventGates()

    /// The pattern every byte route serves: byte i is i % 251.
    /// A plain loop: a generic `map` over a range is unspecialized in debug builds and, under the thread
    /// sanitizer, contends on the runtime's metadata lock for every byte, starving every other test.
    package static func pattern(_ count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            guard let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var index = 0
            var value: UInt8 = 0
            while index < count {
                bytes[index] = value
                value = value == 250 ? 0 : value &+ 1
                index += 1
            }
        }
        return data
    }

    private func respond(to request: Request, on client: Int32) -> Bool {
        var target = request.path
        if target.hasPrefix("http://"), let slash = target.dropFirst(7).firstIndex(of: "/") {
            // Absolute form: the client sent the request through us as an HTTP proxy.
            target = String(target[slash...])
            if target.hasPrefix("/headers") { target = "/headers" }
        }
        let parts = target.split(separator: "?", maxSplits: 1)
        let path = String(parts.first ?? "")
        let segments = path.split(separator: "/").map(String.init)
        switch segments.first ?? "" {
        case "bytes":
            let count = Int(segments.dropFirst().first ?? "0") ?? 0
            return reply(client, headers: [("Content-Type", "application/octet-stream"), ("ETag", "\"v1\"")],
                         body: Self.pattern(count))
        case "status":
            return reply(client, status: Int(segments.dropFirst().first ?? "200") ?? 200)
        case "echo":
            var headers = [("Content-Type", "application/octet-stream"), ("X-Method", request.method)]
            if let type = request.headers["content-type"] { headers.append(("X-Content-Type", type)) }
            return reply(client, headers: headers, body: request.body)
        case "headers":
            let lines = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
            return reply(client, headers: [("Content-Type", "text/plain")], body: Data(lines.utf8))
        case "request-head":  // the header lines exactly as they came, one per line
            return reply(client, headers: [("Content-Type", "text/plain")],
                         body: Data(request.headerLines.joined(separator: "\n").utf8))
        case "query":
            return reply(client, headers: [("Content-Type", "text/plain")],
                         body: Data((parts.count > 1 ? String(parts[1]) : "").utf8))
        case "drop":
            _ = send(client, head(200, [("Content-Length", "1000")]) + Self.pattern(100))
            return false
        case "stall":
            while !stopped.withLock({ $0 }), receive(client) != nil {}
            return false
        case "loop":
            return reply(client, status: 302, headers: [("Location", "/loop")])
        case "redirect307":
            return reply(client, status: 307, headers: [("Location", "/echo")])
        case "redirect":
            return reply(client, status: 302, headers: [("Location", "/bytes/5")])
        case "redirect-with-body":
            return reply(client, status: 302, headers: [("Location", "/bytes/5"), ("Content-Type", "text/plain")],
                         body: Data("moved".utf8))
        case "events":
            // Server-sent events `total` of them, two per connection from the one after `Last-Event-ID`,
            // then the connection closes; once all were sent, 204 (the client stops).
            let total = Int(segments.dropFirst().first ?? "0") ?? 0
            let start = (request.headers["last-event-id"].flatMap { Int($0) } ?? 0) + 1
            guard start <= total else { return reply(client, status: 204) }
            var stream = ": a comment\r\nretry: 10\r\n\r\n"
            for id in start...min(total, start + 1) {
                stream += "id: \(id)\nevent: tick\ndata: event \(id)\ndata: line 2\n\n"
            }
            _ = send(client, head(200, Self.eventStreamHeaders) + Data(stream.utf8))
            return false
        case "events-gated":
            // One event, then (once the test opened the gate named in the path, or after 30 s: a loaded machine
            // may take seconds to deliver the first) another.
            let gate = segments.dropFirst().first ?? ""
            guard send(client, head(200, Self.eventStreamHeaders) + Data("data: first\n\n".utf8)) else { return false }
            let opened = gates.wait(for: gate, seconds: 30)
            gates.record(gate, openedInTime: opened)
            _ = send(client, Data("data: second\n\n".utf8))
            return false
        case "events-empty":
            // An event stream that closes without an event (a client reconnects, and must give up); the
            // requests for the name in the path are counted.
            gates.count(segments.dropFirst().first ?? "")
            _ = send(client, head(200, Self.eventStreamHeaders) + Data(": nothing\n\n".utf8))
            return false
        case "events-wrong-type":
            _ = send(client, head(200, [("Content-Type", "text/plain"), ("Connection", "close")]) + Data("data: x\n\n".utf8))
            return false
        case "slow":
            let count = Int(segments.dropFirst().first ?? "0") ?? 0
            guard send(client, head(200, [("Content-Length", "\(count)")])) else { return false }
            let data = Self.pattern(count)
            var offset = 0
            while offset < count {
                let end = min(count, offset + 4096)
                guard send(client, data[offset..<end]) else { return false }
                offset = end
                usleep(2000)
            }
            return true
        case "json":
            return reply(client, headers: [("Content-Type", "application/json")], body: Data(#"{"values":[1,2,3]}"#.utf8))
        case "many-headers":
            // More names than the engine searches linearly, with repeats in other spellings before and after.
            var headers = (1...20).map { ("X-H\($0)", "\($0)") }
            headers.insert(("x-h2", "two"), at: 3)
            headers += [("X-DUP", "a"), ("x-dup", "b"), ("X-h3", "again"), ("Content-Type", "text/plain")]
            return reply(client, headers: headers)
        case "cookie":
            return reply(client, headers: [("Set-Cookie", "session=abc; Path=/"), ("Content-Type", "text/plain")])
        case "flaky":
            // /flaky/<key>/<failures>[?retry-after=<value>]: 503 for the first <failures> requests of <key>,
            // then 200; the body names the attempt and the X-Attempt header the client sent.
            let key = segments.count > 1 ? segments[1] : ""
            let failures = segments.count > 2 ? Int(segments[2]) ?? 0 : 0
            let count = flakyCounts.withLock { counts -> Int in
                counts[key, default: 0] += 1
                return counts[key]!
            }
            let body = Data("attempt \(count) \(request.headers["x-attempt"] ?? "-")".utf8)
            if count <= failures {
                var headers = [("Content-Type", "text/plain")]
                if let query = parts.dropFirst().first, query.hasPrefix("retry-after=") {
                    headers.append(("Retry-After", String(query.dropFirst(12)).removingPercentEncoding ?? ""))
                }
                return reply(client, status: 503, headers: headers, body: body)
            }
            return reply(client, headers: [("Content-Type", "text/plain")], body: body)
        case "bearer":
            // /bearer/<token>[/<gate>]: 200 for `Authorization: Bearer <token>`, else 401 (with a gate, once
            // the test opened it, or after 30 s).
            let token = segments.count > 1 ? segments[1] : ""
            if request.headers["authorization"] == "Bearer \(token)" {
                return reply(client, headers: [("Content-Type", "text/plain")], body: Data("welcome".utf8))
            }
            if segments.count > 2 { gates.record(segments[2], openedInTime: gates.wait(for: segments[2], seconds: 30)) }
            return reply(client, status: 401, headers: [("WWW-Authenticate", "Bearer")])
        case "auth":
            if request.headers["authorization"] == "Basic dXNlcjpwYXNzd2Q=" {
                return reply(client, headers: [("Content-Type", "text/plain")], body: Data("authenticated".utf8))
            }
            return reply(client, status: 401, headers: [("WWW-Authenticate", "Basic realm=\"Fake Realm\"")])
        default:
            return reply(client, status: 404)
        }
    }
}

/// Gates an event stream route waits at: a test opens one once it has read the events before it, which
/// shows the client delivered them while the server still held the rest back.
package final class EventGates: @unchecked Sendable {
    // @unchecked Sendable: `opened` and `inTime` are touched only with `condition` locked.
    private let condition = NSCondition()
    private var opened: Set<String> = []
    private var inTime: [String: Bool] = [:]

    /// Opens the gate `name` (the connections waiting at it go on at once).
    package func open(_ name: String) {
        condition.lock()
        opened.insert(name)
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the route found `name` opened before it gave up waiting (nil: it has not finished waiting).
    package func openedInTime(_ name: String) -> Bool? {
        condition.lock()
        defer { condition.unlock() }
        return inTime[name]
    }

    /// Waits, asleep (hundreds of connections may wait at once), until `name` is opened or `seconds` passed.
    func wait(for name: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !opened.contains(name) {
            if !condition.wait(until: deadline) { return opened.contains(name) }
        }
        return true
    }

    func record(_ name: String, openedInTime: Bool) {
        condition.lock()
        inTime[name] = openedInTime
        condition.unlock()
    }

    private let requests = Protected<[String: Int]>([:])

    func count(_ name: String) { requests.withLock { $0[name, default: 0] += 1 } }

    /// How many requests a counting route saw for `name`.
    package func requestCount(_ name: String) -> Int { requests.withLock { $0[name] ?? 0 } }
}
