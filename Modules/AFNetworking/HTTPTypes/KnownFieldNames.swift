import Foundation
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

    /// A common name's two spellings: where their bytes sit in ``Table/spellings`` and the name each takes.
    private struct Entry {
        let key: Int
        let titleStart: Int
        let lowercaseStart: Int
        let title: HTTPField.Name
        let lowercase: HTTPField.Name
    }

    /// The spellings' bytes back to back, the entries in key order and, per key, its first entry's
    /// position + 1 (0: no entry). A name is found in its key's few entries (most keys hold one), each
    /// compared with one memcmp: scanning every name of the same length, an array of bytes per spelling,
    /// cost half as much again.
    private struct Table {
        var spellings: [UInt8] = []
        var entries: [Entry] = []
        var firstEntry = [UInt8](repeating: 0, count: 1 << 10)
    }

    /// Names this long or longer are never common ones (the longest has 27 bytes).
    private static let lengthLimit = 32

    /// A name's bucket: its length and the low five bits of its first byte (the same for either case of
    /// a letter), below 1 << 10.
    private static func key(count: Int, first: UInt8) -> Int { count << 5 | Int(first & 0x1F) }

    private static let table: Table = {
        var table = Table()
        var entries: [Entry] = []
        for name in common {
            // HTTPTypes spells its names in title case; `canonicalName` is their lowercase.
            let title = Array(name.rawName.utf8), lowercase = Array(name.canonicalName.utf8)
            guard let first = title.first, title.count < lengthLimit, let lowercaseName = HTTPField.Name(name.canonicalName)
            else { continue }
            entries.append(Entry(key: key(count: title.count, first: first), titleStart: table.spellings.count,
                                 lowercaseStart: table.spellings.count + title.count, title: name, lowercase: lowercaseName))
            table.spellings += title + lowercase
        }
        entries.sort { $0.key < $1.key }
        for (position, entry) in entries.enumerated().reversed() { table.firstEntry[entry.key] = UInt8(position + 1) }
        table.entries = entries
        return table
    }()

    /// The known name spelled exactly as `bytes`, or nil.
    static func name(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPField.Name? {
        let count = bytes.count
        guard count > 0, count < lengthLimit, let base = bytes.base.baseAddress else { return nil }
        let start = base + bytes.startIndex
        let key = key(count: count, first: start.pointee)
        let table = table
        var position = Int(table.firstEntry[key]) - 1
        guard position >= 0 else { return nil }
        return table.spellings.withUnsafeBufferPointer { spellings in
            guard let spelled = spellings.baseAddress else { return nil }
            while position < table.entries.count, table.entries[position].key == key {
                let entry = table.entries[position]
                if memcmp(start, spelled + entry.titleStart, count) == 0 { return entry.title }
                if memcmp(start, spelled + entry.lowercaseStart, count) == 0 { return entry.lowercase }
                position += 1
            }
            return nil
        }
    }
}
