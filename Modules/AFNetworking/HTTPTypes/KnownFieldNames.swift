import HTTPTypes

/// The field names most responses carry, as `HTTPField.Name`s made once. A header line whose name is
/// spelled byte for byte as one of them (the usual title case of HTTP/1.1, or the lowercase of HTTP/2)
/// takes that name: no String is built, validated and lowercased for it. Any other spelling goes the
/// general way, so a name keeps the server's spelling either way.
enum KnownFieldNames {
    private static let common: [HTTPField.Name] = [
        .server, .date, .contentType, .contentLength, .lastModified, .connection, .eTag, .acceptRanges,
        .cacheControl, .expires, .vary, .location, .setCookie, .transferEncoding, .contentEncoding, .age,
        .contentRange, .contentDisposition, .retryAfter, .wwwAuthenticate, .strictTransportSecurity, .via,
        .accessControlAllowOrigin, .contentLanguage, .contentLocation, .allow,
    ]

    /// The names by their byte length, each in the spelling the type gives it and in lowercase.
    private static let byLength: [[(spelling: [UInt8], name: HTTPField.Name)]] = {
        var table = [[(spelling: [UInt8], name: HTTPField.Name)]](repeating: [], count: 40)
        for name in common {
            let spellings = Set([name.rawName, name.canonicalName])
            for spelling in spellings {
                let known = spelling == name.rawName ? name : HTTPField.Name(spelling)
                guard let known, spelling.utf8.count < table.count else { continue }
                table[spelling.utf8.count].append((Array(spelling.utf8), known))
            }
        }
        return table
    }()

    /// The known name spelled exactly as `bytes`, or nil.
    static func name(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPField.Name? {
        guard bytes.count < byLength.count else { return nil }
        for entry in byLength[bytes.count] where entry.spelling.elementsEqual(bytes) { return entry.name }
        return nil
    }
}
