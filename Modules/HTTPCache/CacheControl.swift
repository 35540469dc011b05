import AFProtocols
/// The directives of a `Cache-Control` header (RFC 9111 §5.2) that a private cache acts on, from a
/// request or a response.
///
/// Unknown directives are ignored, as the RFC asks. A directive whose argument is not a number where
/// one is required (`max-age=soon`) counts as present with no usable value: for `max-age` that makes
/// the response stale (§4.2.1: an invalid freshness lifetime is treated as already expired).
struct CacheControl: Equatable {
    var maxAge: Int?
    var noCache = false
    var noStore = false
    var mustRevalidate = false
    /// `s-maxage` was present (a shared cache's lifetime: here only a sign the server allows sharing).
    var hasSharedMaxAge = false
    var isPrivate = false
    var isPublic = false
    var onlyIfCached = false
    /// `max-stale` without a value accepts any staleness (`Int.max`).
    var maxStale: Int?
    var minFresh: Int?
    /// `max-age` was present but not a number.
    var hasInvalidMaxAge = false

    init() {}

    /// Parses one or more header values (a repeated header's values joined with ", ").
    init(_ value: String?) {
        guard let value else { return }
        for directive in Self.directives(in: value) {
            let argument = directive.argument
            switch directive.name {
            case "max-age":
                maxAge = argument.flatMap(Self.deltaSeconds)
                if maxAge == nil { hasInvalidMaxAge = true }
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "must-revalidate": mustRevalidate = true
            case "s-maxage": hasSharedMaxAge = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "only-if-cached": onlyIfCached = true
            case "max-stale": maxStale = argument.map { Self.deltaSeconds($0) ?? 0 } ?? Int.max
            case "min-fresh": minFresh = argument.flatMap(Self.deltaSeconds) ?? 0
            default: break
            }
        }
    }

    /// Delta-seconds (§1.2.2; ``HTTPDeltaSeconds``).
    static func deltaSeconds(_ text: Substring) -> Int? { HTTPDeltaSeconds.parse(text) }

    /// Splits a header value into lowercased directive names and their (unquoted) arguments.
    ///
    /// Walks the value's UTF-8 bytes: every delimiter is ASCII, and a response's Cache-Control is read on
    /// the engine thread for every answer a cache may keep (Characters cost grapheme breaking per step).
    private static func directives(in value: String) -> [(name: String, argument: Substring?)] {
        var result: [(name: String, argument: Substring?)] = []
        let bytes = value.utf8
        var index = bytes.startIndex
        let end = bytes.endIndex
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        /// `bytes[start..<stop]` without blanks at either end.
        func trimmed(_ start: String.Index, _ stop: String.Index) -> Substring.UTF8View {
            var first = start, last = stop
            while first < last, isBlank(bytes[first]) { first = bytes.index(after: first) }
            while first < last, isBlank(bytes[bytes.index(before: last)]) { last = bytes.index(before: last) }
            return bytes[first..<last]
        }
        while index < end {
            while index < end, isBlank(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index = bytes.index(after: index) }
            guard index < end else { break }
            var nameEnd = index
            while nameEnd < end, bytes[nameEnd] != UInt8(ascii: "="), bytes[nameEnd] != UInt8(ascii: ",") {
                nameEnd = bytes.index(after: nameEnd)
            }
            let name = String(Substring(trimmed(index, nameEnd))).lowercased()
            index = nameEnd
            var argument: Substring?
            if index < end, bytes[index] == UInt8(ascii: "=") {
                index = bytes.index(after: index)
                while index < end, isBlank(bytes[index]) { index = bytes.index(after: index) }
                if index < end, bytes[index] == UInt8(ascii: "\"") {
                    // A quoted string: up to the closing quote (a backslash escapes the next byte).
                    index = bytes.index(after: index)
                    var text: [UInt8] = []
                    while index < end, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "\\"), bytes.index(after: index) < end { index = bytes.index(after: index) }
                        text.append(bytes[index])
                        index = bytes.index(after: index)
                    }
                    argument = Substring(String(decoding: text, as: UTF8.self))
                    while index < end, bytes[index] != UInt8(ascii: ",") { index = bytes.index(after: index) }
                } else {
                    var argumentEnd = index
                    while argumentEnd < end, bytes[argumentEnd] != UInt8(ascii: ",") { argumentEnd = bytes.index(after: argumentEnd) }
                    argument = Substring(trimmed(index, argumentEnd))
                    index = argumentEnd
                }
            }
            if !name.isEmpty { result.append((name, argument)) }
        }
        return result
    }
}
