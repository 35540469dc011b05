import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The upgrade request's head as written, and the response head as read, by the engine itself (libcurl
/// only connected): pure functions, tested without sockets.
enum UpgradeHandshake {
    /// The request head: `GET <path> HTTP/1.1`, `Host`, the request's fields, the session's additional
    /// fields it has none of, and `cookie` when given.
    static func requestHead(for request: URLRequest, url: URL, additionalFields: [(name: String, value: String)],
                            cookie: String?) -> [UInt8] {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var host = url.host(percentEncoded: true) ?? ""
        if host.contains(":") && !host.hasPrefix("[") { host = "[" + host + "]" }
        if let port = url.port, port != (url.scheme?.lowercased() == "https" ? 443 : 80) { host += ":\(port)" }
        var lines = ["GET \(target) HTTP/1.1", "Host: \(host)"]
        let fields = request.allHTTPHeaderFields ?? [:]
        let names = Set(fields.keys.map { $0.lowercased() })
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) where name.lowercased() != "host" {
            lines.append("\(name): \(value)")
        }
        for field in additionalFields where !names.contains(field.name.lowercased()) {
            lines.append("\(field.name): \(field.value)")
        }
        if let cookie, !names.contains("cookie") { lines.append("Cookie: \(cookie)") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    enum ReadResult {
        /// More bytes are needed.
        case incomplete
        /// The head: its status, fields (as sent, in order) and the bytes after it.
        case head(status: Int, fields: [(name: String, value: String)], leftover: [UInt8])
    }

    enum HeadError: Error, Equatable {
        case tooLarge(Int)
        case malformed
    }

    /// Reads a response head from `bytes` (bounded by `maximumSize`). Informational heads other than 101
    /// are skipped, as HTTP says.
    static func readHead(_ bytes: [UInt8], maximumSize: Int) throws(HeadError) -> ReadResult {
        var start = 0
        while true {
            guard let end = headEnd(in: bytes, from: start) else {
                if bytes.count - start > maximumSize { throw .tooLarge(maximumSize) }
                return .incomplete
            }
            guard end - start <= maximumSize else { throw .tooLarge(maximumSize) }
            // Split on the bytes: as Characters, "\r\n" is one grapheme and never equals "\n".
            var lines = bytes[start..<end].split(separator: 0x0A, omittingEmptySubsequences: false)
                .map { String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self) }
            while lines.last?.isEmpty == true { lines.removeLast() }
            guard let statusLine = lines.first else { throw .malformed }
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
                  let status = Int(parts[1]), (100...599).contains(status) else { throw .malformed }
            var fields: [(name: String, value: String)] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                      !line.first!.isWhitespace else { throw .malformed }
                let name = String(line[..<colon])
                guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .malformed }
                fields.append((name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            if status >= 100 && status < 200 && status != 101 {
                start = end
                continue
            }
            return .head(status: status, fields: fields, leftover: Array(bytes[end...]))
        }
    }

    /// The index just past the blank line that ends a head starting at `start`, if it has arrived.
    private static func headEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// The response as Foundation's value (repeated fields joined with ", ", as HTTPURLResponse does).
    static func response(url: URL, status: Int, fields: [(name: String, value: String)]) -> HTTPURLResponse? {
        var joined: [String: String] = [:]
        var order: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let existing = order[key] {
                joined[existing] = joined[existing]! + ", " + field.value
            } else {
                order[key] = field.name
                joined[field.name] = field.value
            }
        }
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: joined)
    }
}
