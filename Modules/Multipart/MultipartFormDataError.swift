import AFProtocols
import Foundation

/// Why a multipart form could not be built or its body not be read.
///
/// Bridges to `NSError` in `URLRequestSerializationErrorDomain` (where AFNetworking reports its file
/// URL errors) with a `URLError` code and AF's failure reasons where AF has them.
public enum MultipartFormDataError: Error, Sendable, Equatable, CustomNSError, LocalizedError {
    /// `appendPart(withFileURL:...)` got a URL that is not a `file:` URL: code -1000 (`NSURLErrorBadURL`),
    /// "Expected URL to be a file URL".
    case notAFileURL(URL)
    /// The file does not exist: code -1000, "File URL not reachable.".
    case fileNotReachable(URL)
    /// The file exists but cannot be read (permissions, a directory): code -1102
    /// (`NSURLErrorNoPermissionsToReadFile`); `errno` says why.
    case fileUnreadable(URL, errno: Int32)
    /// A multipart request was asked for a method without a body (`GET`, `HEAD`): code -1002
    /// (`NSURLErrorUnsupportedURL`).
    case methodNotAllowed(String)
    /// An input-stream part ended before its declared length: code -1021
    /// (`NSURLErrorRequestBodyStreamExhausted`); the body would not match its `Content-Length`.
    case streamShorterThanDeclared(name: String, declared: Int64, actual: Int64)
    /// The body could not be written to the file: code -3000 (`NSURLErrorCannotCreateFile`) or -3003
    /// (`NSURLErrorCannotWriteToFile`); `errno` says why.
    case cannotWriteFile(URL, errno: Int32, created: Bool)
    /// A part header that would forge lines on the wire: a MIME type or header value with CR, LF or NUL,
    /// or a header name that is not an RFC 9110 token. Code -1000 (`NSURLErrorBadURL`); `part` names the
    /// part, `field` the header. The part is not appended and no body is produced.
    case invalidPartHeader(part: String, field: String)

    public static var errorDomain: String { URLRequestSerializationErrorDomain }

    public var errorCode: Int {
        switch self {
        case .notAFileURL, .fileNotReachable, .invalidPartHeader: return NSURLErrorBadURL
        case .fileUnreadable: return NSURLErrorNoPermissionsToReadFile
        case .methodNotAllowed: return NSURLErrorUnsupportedURL
        case .streamShorterThanDeclared: return NSURLErrorRequestBodyStreamExhausted
        case .cannotWriteFile(_, _, let created): return created ? NSURLErrorCannotWriteToFile : NSURLErrorCannotCreateFile
        }
    }

    /// AFNetworking's failure reason where it has one.
    public var failureReason: String? {
        switch self {
        case .notAFileURL: return "Expected URL to be a file URL"
        case .fileNotReachable: return "File URL not reachable."
        case .fileUnreadable(let url, let code): return "File \(url.path) cannot be read: \(String(cString: strerror(code)))."
        case .methodNotAllowed(let method): return "A multipart form needs a method with a body, not \(method)."
        case .streamShorterThanDeclared(let name, let declared, let actual):
            return "The stream of part \"\(name)\" ended after \(actual) of its \(declared) bytes."
        case .cannotWriteFile(let url, let code, _):
            return "Cannot write the body to \(url.path): \(String(cString: strerror(code)))."
        case .invalidPartHeader(let part, let field):
            return "The \(field) header of part \"\(part)\" is not a valid header line (a line break, NUL, or a name that is not a token)."
        }
    }

    public var errorDescription: String? { failureReason }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [:]
        if let failureReason {
            info[NSLocalizedDescriptionKey] = failureReason
            info[NSLocalizedFailureReasonErrorKey] = failureReason
        }
        switch self {
        case .notAFileURL(let url), .fileNotReachable(let url), .fileUnreadable(let url, _), .cannotWriteFile(let url, _, _):
            info[NSURLErrorFailingURLErrorKey] = url
        case .methodNotAllowed, .streamShorterThanDeclared, .invalidPartHeader:
            break
        }
        return info
    }
}
