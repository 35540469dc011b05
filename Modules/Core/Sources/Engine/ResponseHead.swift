import AFProtocols
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response's status line and header lines as the engine received them, turned into an
/// `HTTPURLResponse` only when first asked for.
///
/// The engine thread only copies the header lines' bytes: splitting them into fields and Foundation's
/// initializer (which canonicalizes every name, about 1 µs a header) cost more than the rest of a small
/// request's engine work, so they run off the engine thread (usually on the processing queue) or not at all.
package final class ResponseHead: Sendable {
    let url: URL
    package let statusCode: Int
    let httpVersion: String
    /// The status line's reason phrase as the server sent it ("" over HTTP/2, or when it sent none).
    package let reasonPhrase: String
    /// The block's header lines, each "Name: value" (trimmed) followed by a line feed.
    private let headerLines: [UInt8]
    /// How many lines `headerLines` holds, to size a collection of them at once.
    package let headerLineCount: Int
    /// The response once built. An atomic reference, not a lock: most heads (the HTTPTypes path's, the
    /// lean stream's) never build one, and a lock would be an allocation per request for nothing. Two
    /// threads asking at once may both build it; the first stored is the one every caller gets.
    private let built = AtomicLazyReference<HTTPURLResponse>()

    /// `headerLineCount`: how many lines `headerLines` holds, when the caller counted them (nil: counted here).
    init(url: URL, statusCode: Int, httpVersion: String, headerLines: [UInt8], headerLineCount: Int? = nil,
         reasonPhrase: String = "") {
        self.url = url
        self.headerLineCount = headerLineCount ?? headerLines.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        self.reasonPhrase = reasonPhrase
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.headerLines = headerLines
    }

    /// A head for a response that did not come from the wire (an answer from the cache).
    convenience init(response: HTTPURLResponse) {
        var lines: [UInt8] = []
        for (name, value) in response.allHeaderFields {
            lines += Array("\(name): \(value)\n".utf8)
        }
        self.init(url: response.url ?? URL(fileURLWithPath: "/"), statusCode: response.statusCode,
                  httpVersion: "HTTP/1.1", headerLines: lines)
        _ = built.storeIfNil(response)
    }

    /// The response (built once).
    var response: HTTPURLResponse? {
        if let response = built.load() { return response }
        guard let response = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion,
                                             headerFields: headerFields) else { return nil }
        return built.storeIfNil(response)
    }

    /// The header fields: each name as first spelled, a repeated name's values joined with ", " in
    /// arrival order (names compared case-insensitively, as HTTP does).
    var headerFields: [String: String] {
        var entries: [(name: Range<Int>, value: String)] = []
        entries.reserveCapacity(16)
        var positions: [String: Int]?
        return headerLines.withUnsafeBufferPointer { bytes in
            _ = Self.forEachLine(of: bytes) { nameBytes, valueBytes in
                let name = nameBytes.startIndex..<nameBytes.endIndex
                let value = String(decoding: valueBytes, as: UTF8.self)
                // A response has a dozen headers or so: comparing bytes beats hashing lowercased copies.
                // Past `linearSearchLimit` names (a hostile server's thousands) a hash index takes
                // over, so merging stays linear in the header count.
                var first: Int?
                if let positions {
                    first = positions[Self.loweredName(bytes, name)]
                } else {
                    first = entries.firstIndex { Self.equalIgnoringASCIICase(bytes, $0.name, name) }
                }
                if let first {
                    entries[first].value += ", " + value
                } else {
                    entries.append((name, value))
                    if positions != nil {
                        positions?[Self.loweredName(bytes, name)] = entries.count - 1
                    } else if entries.count > Self.linearSearchLimit {
                        var index = [String: Int](minimumCapacity: entries.count * 2)
                        for (offset, entry) in entries.enumerated() {
                            index[Self.loweredName(bytes, entry.name)] = offset
                        }
                        positions = index
                    }
                }
                return true
            }
            var fields = [String: String](minimumCapacity: entries.count)
            for entry in entries {
                fields[String(decoding: UnsafeBufferPointer(rebasing: bytes[entry.name]), as: UTF8.self)] = entry.value
            }
            return fields
        }
    }

    /// The value of the field `lowercasedName` (its repeats joined with ", "), read from the lines without
    /// building the response; nil when no line has that name.
    func value(named lowercasedName: String) -> String? {
        var wantedName = lowercasedName
        return wantedName.withUTF8 { wanted in
            var joined: String?
            _ = forEachHeaderLine { name, value in
                guard name.count == wanted.count else { return true }
                for (byte, expected) in zip(name, wanted) where (Self.isLetter(byte) ? byte | 0x20 : byte) != expected {
                    return true
                }
                let text = String(decoding: value, as: UTF8.self)
                joined = joined.map { $0 + ", " + text } ?? text
                return true
            }
            return joined
        }
    }

    /// Calls `body` with each header line's name and value bytes (leading blanks of the value skipped;
    /// a line without a colon is passed over), in arrival order, until it returns false.
    /// - Returns: whether every line was visited.
    package func forEachHeaderLine(_ body: (Slice<UnsafeBufferPointer<UInt8>>, Slice<UnsafeBufferPointer<UInt8>>) -> Bool) -> Bool {
        headerLines.withUnsafeBufferPointer { Self.forEachLine(of: $0, body) }
    }

    private static func forEachLine(of bytes: UnsafeBufferPointer<UInt8>,
                                    _ body: (Slice<UnsafeBufferPointer<UInt8>>, Slice<UnsafeBufferPointer<UInt8>>) -> Bool) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        // memchr finds each line's end and colon: a lookup walks every line of the block, on the engine
        // thread too (the cache's storability check), and a byte loop costs several times as much.
        func offset(of byte: UInt8, from start: Int, to end: Int) -> Int? {
            memchr(base + start, Int32(byte), end - start).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
        }
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = offset(of: 0x0A, from: lineStart, to: bytes.count) ?? bytes.count
            if let colon = offset(of: 0x3A, from: lineStart, to: lineEnd) {
                var valueStart = colon + 1
                while valueStart < lineEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
                guard body(bytes[lineStart..<colon], bytes[valueStart..<lineEnd]) else { return false }
            }
            lineStart = lineEnd + 1
        }
        return true
    }

    /// How many distinct names are merged by comparing bytes before a hash index is built.
    static let linearSearchLimit = 32

    private static func loweredName(_ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> String {
        String(decoding: bytes[name].lazy.map { isLetter($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func equalIgnoringASCIICase(_ bytes: UnsafeBufferPointer<UInt8>, _ first: Range<Int>,
                                               _ second: Range<Int>) -> Bool {
        guard first.count == second.count else { return false }
        for offset in 0..<first.count {
            let left = bytes[first.lowerBound + offset], right = bytes[second.lowerBound + offset]
            if left == right { continue }
            guard Self.isLetter(left), left | 0x20 == right | 0x20 else { return false }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
