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
        self.init(url: url, method: request.method.rawValue.uppercased(),
                  fieldLines: RequestFieldLines(lines: request.headerFields.map {
                      RequestFieldLines.Line(name: $0.name.rawName, value: $0.value)
                  }))
    }

    /// "scheme://authority/path" in one allocation (an interpolation grows its buffer as it goes).
    private static func urlString(scheme: String, authority: String, path: String) -> String {
        var string = ""
        string.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
        string += scheme
        string += "://"
        string += authority
        string += path
        return string
    }
}
