import AFNetworking
import ArgumentParser
import Foundation

/// Prints a response the way a person reads it: the head on request, JSON pretty-printed, XML as
/// text or through an XPath expression, other text as is, binary bodies summarized.
struct ResponsePrinter {
    let raw: Bool
    let xpath: String?
    let decode: Bool
    /// Colours on a terminal (nil: plain text).
    var style: TerminalStyle? = nil

    /// The status line (with the server's own reason phrase when it sent one) and the headers.
    func printHead(_ response: HTTPURLResponse, protocolName: String?, reason: String? = nil) {
        let version = protocolName == "h2" ? "HTTP/2" : (protocolName ?? "http/1.1").uppercased()
        let phrase = reason ?? HTTPStatusReasonPhrase.phrase(for: response.statusCode)
        var lines = [style?.statusLine(version: version, status: response.statusCode, reason: phrase)
            ?? "\(version) \(response.statusCode) \(phrase)"]
        let headers = response.allHeaderFields.compactMap { key, value in (key as? String).map { ($0, "\(value)") } }
        for (name, value) in headers.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            lines.append(style?.header(name: name, value: value) ?? "\(name): \(value)")
        }
        write(lines.joined(separator: "\n") + "\n\n")
    }

    func printBody(_ data: Data, response: HTTPURLResponse) throws {
        if raw {
            FileHandle.standardOutput.write(data)
            return
        }
        let mimeType = response.mimeType ?? ""
        if let xpath {
            guard Self.isXML(mimeType) || data.first == UInt8(ascii: "<") else {
                throw ValidationError("--xpath needs an XML response; this one is \(mimeType.isEmpty ? "untyped" : mimeType).")
            }
            let document = try XMLTreeDocument(data: data)
            write(try document.evaluate(xpath: xpath).stringValue + "\n")
            return
        }
        // The response module's parser (it also parses error bodies, as AFNetworking does); invalid JSON
        // falls through to the text printer below.
        if Self.isJSON(mimeType), !data.isEmpty,
           let value = JSONResponseSerializer(readingOptions: .fragmentsAllowed).responseObject(for: response, data: data).object
               as? ParameterValue {
            let text = decode ? Self.tree(value) : try Self.prettyJSON(value)
            write((decode ? text : style?.json(text) ?? text) + "\n")
            return
        }
        if Self.isXML(mimeType), let document = try? XMLTreeDocument(data: data, options: XMLParsingOptions(keepsBlankText: false)) {
            let text = document.xmlString(prettyPrinted: true)
            write((style?.xml(text) ?? text) + "\n")
            return
        }
        if let text = String(data: data, encoding: .utf8), Self.isText(mimeType) || !data.contains(0) {
            write(text.hasSuffix("\n") || text.isEmpty ? text : text + "\n")
            return
        }
        write("<\(data.count) bytes of \(mimeType.isEmpty ? "binary data" : mimeType); use --download PATH or --raw>\n")
    }

    static func isJSON(_ mime: String) -> Bool {
        ["application/json", "text/json", "text/javascript"].contains(mime) || mime.hasSuffix("+json")
    }

    static func isXML(_ mime: String) -> Bool {
        ["application/xml", "text/xml"].contains(mime) || mime.hasSuffix("+xml")
    }

    static func isText(_ mime: String) -> Bool {
        mime.hasPrefix("text/") || isJSON(mime) || isXML(mime)
    }

    static func prettyJSON(_ value: ParameterValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A typed outline of a JSON value: one line per leaf, `path: type value`.
    static func tree(_ value: ParameterValue, path: String = "$") -> String {
        switch value {
        case .dictionary:
            let lines = value.sortedEntries.map { tree($0.value, path: "\(path).\($0.key)") }
            return lines.isEmpty ? "\(path): object (empty)" : lines.joined(separator: "\n")
        case .array(let elements):
            let lines = elements.enumerated().map { tree($0.element, path: "\(path)[\($0.offset)]") }
            return lines.isEmpty ? "\(path): array (empty)" : lines.joined(separator: "\n")
        case .set:
            return "\(path): set \(value)"
        case .string(let text): return "\(path): string \"\(text)\""
        case .int, .double: return "\(path): number \(value.scalarDescription ?? "")"
        case .bool(let flag): return "\(path): bool \(flag)"
        case .null: return "\(path): null"
        }
    }

    private func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
}
