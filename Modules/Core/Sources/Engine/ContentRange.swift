/// A 206 response's `Content-Range: bytes first-last/complete` (RFC 9110 section 14.4), and whether it
/// continues a download at the offset asked for.
package struct ContentRange: Equatable {
    package let first: Int64
    package let last: Int64
    /// The complete length, nil for `*`.
    package let completeLength: Int64?

    /// Parses `bytes first-last/complete` (complete may be `*`); nil for anything else, an unsatisfied
    /// range (`bytes */n`) included.
    package init?(_ header: String) {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).drop { $0 == " " }
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
              first <= last else { return nil }
        let complete = parts[1].trimmingSuffixSpaces
        if complete == "*" {
            completeLength = nil
        } else {
            guard let length = Self.number(Substring(complete)), last < length else { return nil }
            completeLength = length
        }
        self.first = first
        self.last = last
    }

    package init(first: Int64, last: Int64, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// Why a 206 carrying `header` (nil: none) and `contentLength` (-1: unknown) does not continue a file
    /// of `offset` bytes, or nil when it does: it must start at `offset`, and its body must be the range.
    /// The engine applies it to resumed downloads; `af get --download --continue` to the file it appends to.
    package static func mismatch(header: String?, contentLength: Int64, offset: Int64) -> String? {
        guard let header else { return "The server answered the resumed download with 206 but no Content-Range." }
        guard let range = ContentRange(header) else {
            return "The server answered the resumed download with an unreadable Content-Range “\(header)”."
        }
        guard range.first == offset else {
            return "The server sent bytes \(range.first)-\(range.last) for a download resumed at byte \(offset)."
        }
        if contentLength >= 0, contentLength != range.last - range.first + 1 {
            return "The server's Content-Length \(contentLength) disagrees with its range \(range.first)-\(range.last)."
        }
        return nil
    }

    /// Whether a 416 carrying `header` (nil: none) says a resource of exactly `offset` bytes was asked for
    /// from its end: `Content-Range: bytes */<offset>` (RFC 9110 section 15.5.17). Then a resume at
    /// `offset` has nothing left to fetch and what was kept is the whole body; any other 416 is an error.
    package static func confirmsComplete(header: String?, offset: Int64) -> Bool {
        guard offset > 0, let header else { return false }
        let trimmed = header.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("bytes ") else { return false }
        let spec = trimmed.dropFirst(6).drop { $0 == " " }
        guard spec.hasPrefix("*/") else { return false }
        return number(Substring(spec.dropFirst(2).trimmingSuffixSpaces)) == offset
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}

private extension Substring {
    var trimmingSuffixSpaces: String {
        var text = self
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
