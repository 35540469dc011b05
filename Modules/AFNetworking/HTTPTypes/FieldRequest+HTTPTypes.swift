import AFCore
import Foundation
import HTTPTypes

extension FieldRequest {
    /// `request`'s URL from its scheme, authority and path, its method and its fields. Each field goes
    /// out as one line as it is: swift-http-types keeps names tokens and values free of CR, LF and NUL
    /// (what `InvalidRequestError` checks a `URLRequest`'s fields for).
    /// - Throws: `URLError(.badURL)` without a scheme, authority or path, or when they make no URL.
    init(_ request: HTTPRequest) throws {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path,
              let url = URL(string: Self.urlString(scheme: scheme, authority: authority, path: path)) else {
            throw CurlErrorMapping.error(.badURL, url: nil, description: "The request has no scheme, authority or path.")
        }
        let fields = request.headerFields
        self.init(url: url, method: request.method.rawValue.uppercased(),
                  fieldLines: RequestFieldLines(lines: fields.map { RequestFieldLines.Line(name: $0.name.rawName, value: $0.value) }),
                  lowercasedNames: Self.lowercasedNames(of: fields))
    }

    /// The fields' names lowercased, which their canonical names already are: no name is lowercased
    /// again, and the set is sized once (a third less than lowercasing each line's name into a set).
    static func lowercasedNames(of fields: HTTPFields) -> Set<String> {
        var names = Set<String>(minimumCapacity: fields.count)
        for field in fields { names.insert(field.name.canonicalName) }
        return names
    }

    /// "scheme://authority/path", its bytes copied into one allocation: appending the parts one by one
    /// cost three times as much.
    static func urlString(scheme: String, authority: String, path: String) -> String {
        var scheme = scheme, authority = authority, path = path
        return scheme.withUTF8 { scheme in
            authority.withUTF8 { authority in
                path.withUTF8 { path in
                    String(unsafeUninitializedCapacity: scheme.count + 3 + authority.count + path.count) { buffer in
                        var written = 0
                        func write(_ part: UnsafeBufferPointer<UInt8>) {
                            guard let source = part.baseAddress, let target = buffer.baseAddress else { return }
                            (target + written).initialize(from: source, count: part.count)
                            written += part.count
                        }
                        write(scheme)
                        let separator: StaticString = "://"
                        write(UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount))
                        write(authority)
                        write(path)
                        return written
                    }
                }
            }
        }
    }
}
