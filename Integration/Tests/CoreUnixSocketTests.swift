// Requests over a Unix domain socket, to nginx listening on one: `http+unix` URLs, a session-wide socket,
// both paths; a socket never outlives its request, and a server cannot redirect into one.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Core: Unix domain sockets")
struct CoreUnixSocketTests {
    /// `http+unix://<socket, percent-encoded>/<path>`.
    private func socketURL(_ socket: String, _ path: String) -> URL {
        var components = URLComponents()
        components.scheme = "http+unix"
        components.host = socket
        components.path = path
        return components.url!
    }

    private func manager(_ configure: (URLSessionManager) -> Void = { _ in }) -> HTTPSessionManager {
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer(validation: HTTPResponseValidation(acceptableStatusCodes: nil))
        configure(manager)
        return manager
    }

    private func fetch(_ manager: HTTPSessionManager, _ request: URLRequest) async -> CoreResult {
        await runTask { done in manager.dataTask(with: request, completionHandler: done) }
    }

    private func text(_ result: CoreResult) -> String? { (result.object as? Data).map { String(decoding: $0, as: UTF8.self) } }

    @Test func anHTTPUnixURLNamesTheSocket() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = socketURL(servers.nginx.unixSocketPath, "/via-socket")
        #expect(url.absoluteString.hasPrefix("http+unix://%2F"))
        let result = await fetch(manager, URLRequest(url: url))
        #expect(result.response?.statusCode == 200)
        #expect(text(result) == "unix\n")
        #expect(result.response?.url == url)

        let file = await fetch(manager, URLRequest(url: socketURL(servers.nginx.unixSocketPath, "/files/1k.bin")))
        #expect((file.object as? Data)?.count == 1024)

        var upload = URLRequest(url: socketURL(servers.nginx.unixSocketPath, "/upload"))
        upload.httpMethod = "POST"
        upload.httpBody = Data(repeating: 7, count: 10_240)
        let sent = await fetch(manager, upload)
        #expect(sent.json?["bytes"] as? Int == 10_240)

        // The lean path takes the same URLs.
        let (data, response) = try await manager.session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "unix\n")
    }

    @Test func aSessionSocketCarriesEveryRequest() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = manager { $0.unixSocketPath = servers.nginx.unixSocketPath }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await fetch(manager, URLRequest(url: URL(string: "http://localhost/via-socket")!))
        #expect(result.response?.statusCode == 200)
        #expect(text(result) == "unix\n")
    }

    @Test func aSocketNeverOutlivesItsRequest() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        // The same kind of plain GET, one over the socket, then one over TCP: the pooled handle of the first
        // must not carry its socket into the second, which nginx's TCP port answers with 404.
        for _ in 0..<3 {
            let viaSocket = await fetch(manager, URLRequest(url: socketURL(servers.nginx.unixSocketPath, "/via-socket")))
            #expect(text(viaSocket) == "unix\n")
            let overTCP = await fetch(manager, URLRequest(url: servers.nginx.httpURL("/via-socket")))
            #expect(overTCP.response?.statusCode == 404)
        }
    }

    @Test func badSocketsFailWithTheirCode() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let missing = await fetch(manager, URLRequest(url: socketURL("/nonexistent/af-\(getpid()).sock", "/")))
        #expect(missing.code == URLError.Code.cannotConnectToHost.rawValue)

        let relative = await fetch(manager, URLRequest(url: URL(string: "http+unix://relative.sock/path")!))
        #expect(relative.code == URLError.Code.badURL.rawValue)
        #expect(relative.error?.localizedDescription
            == "An http+unix URL's host must be the socket's absolute path, percent-encoded (http+unix://%2Frun%2Fapp.sock/path).")
    }

    @Test func aServerCannotRedirectIntoASocket() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let target = socketURL(servers.nginx.unixSocketPath, "/via-socket").absoluteString
        let result = await fetch(manager, URLRequest(url: hostileURL(servers.faultServer.baseURL, "/hostile/redirect", ["to": target])))
        #expect(result.code == URLError.Code.unsupportedURL.rawValue)
        #expect(text(result) != "unix\n")
    }
}
