import CLibXML2
import Foundation

/// Why an XML document failed to parse, with the position of the failure.
///
/// Threading: a value type; safe to share.
public struct XMLParsingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The document is not well-formed XML (syntax, encoding, truncation, undeclared entity...).
        case malformed
        /// Elements nest deeper than ``XMLParsingOptions/maximumDepth`` (or libxml2's own ceiling).
        case depthLimitExceeded
        /// Entity references exceed ``XMLParsingOptions/maximumEntityResolutions``, or expand to more than
        /// 10 MB and more than 10 times the bytes read (a "billion laughs" document; streaming, attribute
        /// values defaulted from the DTD count too), or trip libxml2's own loop check.
        case entityLimitExceeded
        /// The delegate stopped the parse with ``XMLPushParser/abortParsing()``.
        case aborted
        /// Bytes were fed after ``XMLPushParser/finish()`` or after a failure.
        case parserFinished
        /// `feed` or `finish` was called from inside a delegate method of the same parser.
        case reentrantCall
    }

    /// The class of failure.
    public var kind: Kind
    /// libxml2's error code (`xmlParserErrors`), or 0 for limits this library enforces itself.
    public var code: Int
    /// libxml2's message (or ours), without the trailing newline.
    public var message: String
    /// 1-based line of the failure (0 when unknown).
    public var line: Int
    /// 1-based column of the failure (0 when unknown).
    public var column: Int

    /// Creates an error.
    public init(kind: Kind, code: Int = 0, message: String, line: Int = 0, column: Int = 0) {
        self.kind = kind
        self.code = code
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { "XML \(kind.rawValue) error at line \(line), column \(column): \(message)" }

    /// Converts libxml2's structured error.
    init(_ error: xmlError) {
        let message = error.message.map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown libxml2 error"
        let code = Int(error.code)
        let kind: Kind
        if code == Int(XML_ERR_ENTITY_LOOP.rawValue) {
            kind = .entityLimitExceeded
        } else if message.hasPrefix("Excessive depth in document") {
            kind = .depthLimitExceeded
        } else {
            kind = .malformed
        }
        self.init(kind: kind, code: code, message: message, line: Int(error.line), column: Int(error.int2))
    }
}
