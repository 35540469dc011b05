/// `Sec-WebSocket-Extensions`' syntax (RFC 6455 §9.1): a comma-separated list of extensions, each a
/// token followed by `;`-separated parameters, `token` or `token=value` where the value is a token or
/// a quoted-string; whitespace around the separators is allowed, empty list elements are skipped
/// (RFC 9110 §5.6.1).
struct ExtensionHeader: Sendable {
    /// The extension's name, as written.
    var name: String
    /// Its parameters in order: the name as written and the value (unquoted), nil when there is none.
    var parameters: [(name: String, value: String?)]

    /// The elements of `headerValue`, in order.
    /// - Throws: ``PerMessageDeflate/NegotiationError/malformedHeader(_:)``.
    static func parse(_ headerValue: String) throws(PerMessageDeflate.NegotiationError) -> [ExtensionHeader] {
        var extensions: [ExtensionHeader] = []
        for element in try split(Array(headerValue.utf8), at: UInt8(ascii: ",")) {
            let parts = try split(element, at: UInt8(ascii: ";")).map(trimmed)
            guard let first = parts.first, !(parts.count == 1 && first.isEmpty) else { continue }
            guard isToken(first) else { throw .malformedHeader("extension name “\(text(first))”") }
            var parameters: [(name: String, value: String?)] = []
            for part in parts.dropFirst() {
                guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else {
                    guard isToken(part) else { throw .malformedHeader("parameter “\(text(part))”") }
                    parameters.append((text(part), nil))
                    continue
                }
                let name = trimmed(Array(part[..<equals]))
                let rawValue = trimmed(Array(part[(equals + 1)...]))
                guard isToken(name) else { throw .malformedHeader("parameter “\(text(part))”") }
                parameters.append((text(name), try value(rawValue)))
            }
            extensions.append(ExtensionHeader(name: text(first), parameters: parameters))
        }
        return extensions
    }

    /// `bytes` split at each `separator` outside a quoted-string.
    private static func split(_ bytes: [UInt8], at separator: UInt8) throws(PerMessageDeflate.NegotiationError) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var current: [UInt8] = []
        var inQuotes = false
        var escaped = false
        for byte in bytes {
            if inQuotes {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
                current.append(byte)
            } else if byte == separator {
                pieces.append(current)
                current = []
            } else {
                if byte == UInt8(ascii: "\"") { inQuotes = true }
                current.append(byte)
            }
        }
        guard !inQuotes else { throw .malformedHeader("an unterminated quoted-string") }
        pieces.append(current)
        return pieces
    }

    /// A parameter's value: a token, or a quoted-string unescaped (§9.1).
    private static func value(_ bytes: [UInt8]) throws(PerMessageDeflate.NegotiationError) -> String {
        if isToken(bytes) { return text(bytes) }
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            throw .malformedHeader("value “\(text(bytes))”")
        }
        var unescaped: [UInt8] = []
        var escaped = false
        for byte in bytes.dropFirst().dropLast() {
            if !escaped, byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            }
            if !escaped, byte == UInt8(ascii: "\"") { throw .malformedHeader("value “\(text(bytes))”") }
            escaped = false
            unescaped.append(byte)
        }
        return text(unescaped)
    }

    /// Whether `bytes` is a non-empty token (RFC 9110 §5.6.2's tchar).
    private static func isToken(_ bytes: [UInt8]) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default:
                Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return Array(bytes[start...end])
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
