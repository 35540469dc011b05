import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

extension LeanSession {
    /// A WebSocket for `request` (its URL ws, wss, http or https), already resumed: as
    /// `webSocketTask(with:protocols:)` then `resume()`.
    public func webSocket(for request: URLRequest, protocols: [String] = []) -> WebSocketTask {
        let task = webSocketTask(with: request, protocols: protocols)
        task.resume()
        return task
    }

    /// A WebSocket for `request` in swift-http-types' currency (scheme ws, wss, http or https; its fields,
    /// such as `Authorization` or `Origin`, sent with the handshake, repeated ones joined with ", "),
    /// already resumed.
    /// - Throws: `URLError(.badURL)` when the request has no scheme, authority or path.
    public func webSocket(for request: HTTPRequest, protocols: [String] = []) throws -> WebSocketTask {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path,
              let url = URL(string: scheme + "://" + authority + path) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request has no scheme, authority or path."])
        }
        var urlRequest = URLRequest(url: url)
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        return webSocket(for: urlRequest, protocols: protocols)
    }
}
