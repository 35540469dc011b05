// What the MCP tests share: the Python server's control routes, its request log, and collectors of
// the notifications a client received.
#if MCP
import AFMCP
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The Python MCP server as the tests drive it.
struct MCPTestServer {
    /// One MCP request the server logged.
    struct LoggedRequest: Decodable, Equatable {
        var path: String
        var method: String
        var session: String?
        var protocolVersion: String?
        var lastEventID: String?
        var authorization: String?
        var rpc: String?
        var status: Int?
    }

    /// One event the server's event store kept.
    struct StoredEvent: Decodable {
        struct Message: Decodable {
            struct Params: Decodable { var data: String? }
            var method: String?
            var params: Params?
        }
        var stream: String
        var id: String
        var message: Message?
    }

    let server: MCPServer
    private let control = URLSessionManager(sessionConfiguration: .ephemeral)

    static func shared() async throws -> MCPTestServer { MCPTestServer(server: try await MCPServer.shared()) }

    func url(_ path: String) -> URL { server.url(path) }

    /// The body of a control route's answer (a POST when `post`).
    @discardableResult
    func control(_ pathAndQuery: String, post: Bool = false) async throws -> String {
        var request = URLRequest(url: URL(string: server.url("/").absoluteString.dropLast() + pathAndQuery)!)
        request.httpMethod = post ? "POST" : "GET"
        request.timeoutInterval = 20
        let (data, response) = try await control.session.data(for: request)
        guard response.statusCode == 200 else { throw URLError(.badServerResponse) }
        return String(decoding: data, as: UTF8.self)
    }

    /// The requests of `session` (all, when nil) the server logged, in order.
    func log(session: String? = nil) async throws -> [LoggedRequest] {
        try decodeLines(try await control("/control/log"), as: LoggedRequest.self).filter { session == nil || $0.session == session }
    }

    /// The logged `method` requests to `path`, once `count` of them are logged (the server waits up to 10 s).
    func awaitRequests(path: String, method: String, count: Int) async throws -> [LoggedRequest] {
        try decodeLines(try await control("/control/await?path=\(path)&method=\(method)&count=\(count)"), as: LoggedRequest.self)
    }

    /// The events the server's event store kept.
    func events() async throws -> [StoredEvent] {
        try decodeLines(try await control("/control/events"), as: StoredEvent.self)
    }

    private func decodeLines<T: Decodable>(_ text: String, as type: T.Type) throws -> [T] {
        try text.split(separator: "\n").map { try JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }
}

/// Collects values a client's notification handler hands over, and lets a test wait for the n-th.
final class Collected<Value: Sendable>: Sendable {
    private let state = Mutex<[Value]>([])

    func append(_ value: Value) { state.withLock { $0.append(value) } }

    var values: [Value] { state.withLock { $0 } }

    /// Whether `count` values were collected within `limit` (checked every 5 ms; a bound for a test
    /// that went wrong, not a measurement).
    func waitFor(_ count: Int, within limit: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while values.count < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

extension Tool.Content {
    /// The text of a text content, else nil.
    var text: String? {
        if case .text(let text, _, _) = self { return text }
        return nil
    }
}
#endif
