import Foundation

/// One `Set-Cookie` field value, parsed as RFC 6265bis §5.6 says a user agent parses it: the name and
/// value before the first `;`, then attributes whose names are matched without regard to case, the last
/// of each kind winning. An attribute that is malformed or longer than 1,024 bytes is ignored, as the
/// RFC says; only a value the whole cookie must be refused for is an error (``CookieRefusal``).
///
/// What the attributes mean for storage (the domain and path rules, prefixes, expiry) is applied by the
/// jar, which knows the response's URL.
public struct SetCookie: Equatable, Sendable {
    /// The `SameSite` attribute's values.
    public enum SameSite: String, Equatable, Sendable {
        case strict = "Strict"
        case lax = "Lax"
        /// `SameSite=None` (named so that it does not read as an absent `Optional`).
        case noRestriction = "None"
    }

    /// The cookie's name (may be empty: `Set-Cookie: token` sets a cookie with no name).
    public var name: String
    /// The cookie's value.
    public var value: String
    /// The `Expires` attribute's date (nil: absent or not a date).
    public var expires: Date?
    /// The `Max-Age` attribute's seconds (nil: absent or not a number; saturated at ±2^63-1).
    public var maxAge: Int64?
    /// The `Domain` attribute, lowercased, its leading dot removed (nil: absent or empty).
    public var domain: String?
    /// The `Path` attribute (nil: absent, or not starting with `/`, so the default path applies).
    public var path: String?
    /// Whether the `Secure` attribute is present.
    public var isSecure: Bool
    /// Whether the `HttpOnly` attribute is present.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute (nil: absent or not one of its three values).
    public var sameSite: SameSite?

    /// The longest attribute value read (RFC 6265bis: longer ones are ignored).
    public static let maximumAttributeValueLength = 1_024

    /// Parses `fieldValue`.
    /// - Parameters:
    ///   - fieldValue: one `Set-Cookie` field's value, as the response sent it.
    ///   - maximumNameValueSize: the most bytes the name and value may hold together (the jar's
    ///     ``CookieJar/Limits/maximumCookieSize``; RFC 6265bis: 4,096).
    /// - Throws: ``CookieRefusal/controlCharacter`` for a control character other than a tab anywhere in
    ///   the value, ``CookieRefusal/tooLarge(_:)`` past `maximumNameValueSize`,
    ///   ``CookieRefusal/emptyNameAndValue`` when both are empty.
    public init(parsing fieldValue: String, maximumNameValueSize: Int = 4_096) throws(CookieRefusal) {
        let bytes = Array(fieldValue.utf8)
        // %x00-08 / %x0A-1F / %x7F anywhere: the whole field is ignored.
        for byte in bytes where (byte < 0x20 && byte != 0x09) || byte == 0x7F { throw .controlCharacter }
        let semicolon = UInt8(ascii: ";")
        let pairEnd = bytes.firstIndex(of: semicolon) ?? bytes.count
        let pair = bytes[0..<pairEnd]
        if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
            name = Self.trimmedString(pair[..<equals])
            value = Self.trimmedString(pair[(equals + 1)...])
        } else {
            name = ""
            value = Self.trimmedString(pair)
        }
        let size = name.utf8.count + value.utf8.count
        guard size <= maximumNameValueSize else { throw .tooLarge(size) }
        guard size > 0 else { throw .emptyNameAndValue }

        expires = nil
        maxAge = nil
        domain = nil
        path = nil
        isSecure = false
        isHTTPOnly = false
        sameSite = nil
        var start = pairEnd
        while start < bytes.count {
            start += 1  // the ';'
            let end = bytes[start...].firstIndex(of: semicolon) ?? bytes.count
            applyAttribute(bytes[start..<end])
            start = end
        }
    }

    private mutating func applyAttribute(_ attribute: ArraySlice<UInt8>) {
        let nameBytes: ArraySlice<UInt8>
        let valueBytes: ArraySlice<UInt8>
        if let equals = attribute.firstIndex(of: UInt8(ascii: "=")) {
            nameBytes = attribute[attribute.startIndex..<equals]
            valueBytes = attribute[(equals + 1)...]
        } else {
            nameBytes = attribute
            valueBytes = attribute[attribute.endIndex...]
        }
        let attributeName = Self.trimmed(nameBytes)
        let attributeValue = Self.trimmed(valueBytes)
        guard attributeValue.count <= Self.maximumAttributeValueLength else { return }
        switch Self.lowercased(attributeName) {
        case "expires":
            if let date = CookieDate.parse(attributeValue) { expires = date }
        case "max-age":
            if let seconds = Self.maxAgeSeconds(attributeValue) { maxAge = seconds }
        case "domain":
            var domainBytes = attributeValue[...]
            if domainBytes.first == UInt8(ascii: ".") { domainBytes = domainBytes.dropFirst() }
            // An empty Domain is ignored, as RFC 6265bis advises (it would otherwise mean the host).
            domain = domainBytes.isEmpty ? nil : Self.lowercased(domainBytes)
        case "path":
            path = attributeValue.first == UInt8(ascii: "/") ? String(decoding: attributeValue, as: UTF8.self) : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            switch Self.lowercased(attributeValue) {
            case "strict": sameSite = .strict
            case "lax": sameSite = .lax
            case "none": sameSite = .noRestriction
            default: sameSite = nil
            }
        default:
            break
        }
    }

    /// `Max-Age`: an optional `-` then digits only; anything else is no value. Saturates rather than
    /// overflowing (a value past 400 days is cut to 400 days by the jar anyway).
    private static func maxAgeSeconds(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: Int64 = 0
        for digit in digits {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(digit - 0x30))
            if overflowTimes || overflowSum { return negative ? Int64.min + 1 : Int64.max }
            value = sum
        }
        return negative ? -value : value
    }

    /// The bytes without the spaces and tabs around them.
    private static func trimmed<C: BidirectionalCollection>(_ bytes: C) -> C.SubSequence where C.Element == UInt8 {
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        var slice = bytes[...]
        while let first = slice.first, isBlank(first) { slice = slice.dropFirst() }
        while let last = slice.last, isBlank(last) { slice = slice.dropLast() }
        return slice
    }

    private static func trimmedString<C: BidirectionalCollection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: trimmed(bytes), as: UTF8.self)
    }

    private static func lowercased<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: bytes.lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
