import Foundation

/// ANSI colours for what `af` prints on a terminal, as httpie does: the status line by status class,
/// header names, and JSON and XML syntax. None when standard output is not a terminal or when
/// `NO_COLOR` is set to anything (no-color.org).
struct TerminalStyle {
    private static let reset = "\u{1B}[0m"
    private static let bold = "\u{1B}[1m"
    private static let dim = "\u{1B}[2m"
    private static let red = "\u{1B}[31m"
    private static let green = "\u{1B}[32m"
    private static let yellow = "\u{1B}[33m"
    private static let blue = "\u{1B}[34m"
    private static let magenta = "\u{1B}[35m"
    private static let cyan = "\u{1B}[36m"

    /// The style for standard output now, or nil for plain text.
    static func forStandardOutput(environment: [String: String] = ProcessInfo.processInfo.environment) -> TerminalStyle? {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return nil }
        return isatty(STDOUT_FILENO) == 1 ? TerminalStyle() : nil
    }

    private func paint(_ text: some StringProtocol, _ codes: String...) -> String {
        codes.joined() + text + Self.reset
    }

    /// "HTTP/1.1 404 Not Found": the version dim, the status green (2xx), cyan (3xx), yellow (4xx) or red.
    func statusLine(version: String, status: Int, reason: String) -> String {
        let colour = switch status / 100 {
        case 2: Self.green
        case 3: Self.cyan
        case 4: Self.yellow
        default: Self.red
        }
        return paint(version, Self.dim) + " " + paint("\(status) \(reason)", Self.bold, colour)
    }

    /// "Name: value" with the name in cyan.
    func header(name: String, value: String) -> String { paint(name, Self.cyan) + ": " + value }

    /// Pretty-printed JSON with keys in blue, strings green, numbers magenta, true/false/null yellow.
    func json(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count * 2)
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" {
                var end = text.index(after: index)
                while end < text.endIndex, text[end] != "\"" {
                    if text[end] == "\\" { end = text.index(after: end) }
                    if end < text.endIndex { end = text.index(after: end) }
                }
                if end < text.endIndex { end = text.index(after: end) }
                let token = text[index..<end]
                let isKey = text[end...].first { $0 != " " } == ":"
                output += isKey ? paint(token, Self.bold, Self.blue) : paint(token, Self.green)
                index = end
            } else if character == "-" || character.isNumber {
                var end = index
                while end < text.endIndex, "+-.eE0123456789".contains(text[end]) { end = text.index(after: end) }
                output += paint(text[index..<end], Self.magenta)
                index = end
            } else if let literal = ["true", "false", "null"].first(where: { text[index...].hasPrefix($0) }) {
                output += paint(literal, Self.yellow)
                index = text.index(index, offsetBy: literal.count)
            } else {
                output.append(character)
                index = text.index(after: index)
            }
        }
        return output
    }

    /// Pretty-printed XML with tags in blue, attribute names cyan, their values green, and
    /// comments and declarations dim.
    func xml(_ text: String) -> String {
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            guard text[index] == "<", let close = text[index...].firstIndex(of: ">") else {
                output.append(text[index])
                index = text.index(after: index)
                continue
            }
            let end = text.index(after: close)
            let tag = text[index..<end]
            if tag.hasPrefix("<!--") || tag.hasPrefix("<?") || tag.hasPrefix("<!") {
                output += paint(tag, Self.dim)
            } else {
                output += styledTag(tag)
            }
            index = end
        }
        return output
    }

    /// One tag: `<name`, then each `attribute="value"`, then the closing `>` or `/>`.
    private func styledTag(_ tag: Substring) -> String {
        var nameEnd = tag.index(after: tag.startIndex)
        while nameEnd < tag.endIndex, !" \t\n/>".contains(tag[nameEnd]) || (nameEnd == tag.index(after: tag.startIndex) && tag[nameEnd] == "/") {
            nameEnd = tag.index(after: nameEnd)
        }
        var output = paint(tag[..<nameEnd], Self.blue)
        var index = nameEnd
        while index < tag.endIndex {
            let character = tag[index]
            if character == "=" {
                output.append("=")
                index = tag.index(after: index)
                if index < tag.endIndex, tag[index] == "\"" || tag[index] == "'" {
                    let quote = tag[index]
                    var end = tag.index(after: index)
                    while end < tag.endIndex, tag[end] != quote { end = tag.index(after: end) }
                    if end < tag.endIndex { end = tag.index(after: end) }
                    output += paint(tag[index..<end], Self.green)
                    index = end
                }
            } else if character == ">" || character == "/" {
                output += paint(tag[index...], Self.blue)
                break
            } else if character.isLetter || character == "_" || character == ":" {
                var end = index
                while end < tag.endIndex, !" \t\n=/>".contains(tag[end]) { end = tag.index(after: end) }
                output += paint(tag[index..<end], Self.cyan)
                index = end
            } else {
                output.append(character)
                index = tag.index(after: index)
            }
        }
        return output
    }
}
