import Foundation

/// One part of a multipart body: its header block and where its bytes come from.
struct MultipartBodyPart: Sendable {
    enum Body: Sendable {
        case data(Data)
        case file(URL, length: Int64)
        case stream(@Sendable () throws -> InputStream, length: Int64)
    }

    /// The part's name, for error messages.
    let name: String
    /// `Name: value\r\n` per header, then `\r\n`.
    let headerBlock: Data
    let body: Body

    init(name: String, headers: [(name: String, value: String)], body: Body) {
        self.name = name
        var block = ""
        for header in headers { block += "\(header.name): \(header.value)\r\n" }
        block += "\r\n"
        headerBlock = Data(block.utf8)
        self.body = body
    }

    var bodyLength: Int64 {
        switch body {
        case .data(let data): return Int64(data.count)
        case .file(_, let length), .stream(_, let length): return length
        }
    }

    /// `form-data; name="N"` (plus `; filename="F"`). Quotes and line breaks in names are
    /// percent-encoded as browsers do, so a name can never end the header or inject another one
    /// (AF writes them raw).
    static func contentDisposition(name: String, fileName: String? = nil) -> String {
        var value = "form-data; name=\"\(quotedStringContent(name))\""
        if let fileName { value += "; filename=\"\(quotedStringContent(fileName))\"" }
        return value
    }

    private static func quotedStringContent(_ text: String) -> String {
        guard text.contains(where: { $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
