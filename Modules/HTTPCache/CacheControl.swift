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
    private static func directives(in value: String) -> [(name: String, argument: Substring?)] {
        var result: [(name: String, argument: Substring?)] = []
        var rest = Substring(value)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { break }
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == "," } ?? rest.endIndex
            let name = rest[..<nameEnd].trimmingSpaces().lowercased()
            rest = rest[nameEnd...]
            var argument: Substring?
            if rest.first == "=" {
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                if rest.first == "\"" {
                    // A quoted string: up to the closing quote (a backslash escapes the next character).
                    var index = rest.index(after: rest.startIndex)
                    var text = ""
                    while index < rest.endIndex, rest[index] != "\"" {
                        if rest[index] == "\\", rest.index(after: index) < rest.endIndex { index = rest.index(after: index) }
                        text.append(rest[index])
                        index = rest.index(after: index)
                    }
                    argument = Substring(text)
                    rest = index < rest.endIndex ? rest[rest.index(after: index)...] : rest[rest.endIndex...]
                    rest = rest.drop { $0 != "," }
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    argument = rest[..<end].trimmingSpaces()
                    rest = rest[end...]
                }
            }
            if !name.isEmpty { result.append((name, argument)) }
        }
        return result
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var trimmed = self.drop { $0 == " " || $0 == "\t" }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
