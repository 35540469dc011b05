// The lean path on swift-http-types sends an HTTPRequest as it is (issue 26, part 1: "a URLRequest is
// never built on this path"): plain calls through a session that consults its cache build none, and what
// must read a URLRequest (a redirect the engine follows, a response the cache stores, an interceptor)
// gets one made from the HTTPRequest and behaves as on the URLRequest path.
@testable import AFCore
@testable import AFHTTPTypes
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

@Suite("Lean path on swift-http-types: an HTTPRequest goes out without a URLRequest")
struct LeanHTTPTypesRequestTests {
    /// Performs `request` the way the public HTTPTypes calls do without an interceptor, and returns the
    /// outcome with how many URLRequests the task built.
    private func perform(_ session: LeanSession, _ request: HTTPRequest, sending body: Data? = nil,
                         download: Bool = false) async throws -> (outcome: LeanSession.Outcome, built: Int) {
        let outcome = try await session.perform(.fields(FieldRequest(request)), source: body.map(DataBodySource.init),
                                                download: download)
        return (outcome, outcome.task.updateStorage { $0.builtURLRequests })
    }

    @Test func plainCallsBuildNoURLRequest() async throws {
        let servers = try await IntegrationServers.shared()
        // The ephemeral configuration has a memory URLCache: every GET asks the session's cache first.
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(manager.responseCache != nil)
        let session = manager.session

        let file = servers.nginx.httpURL(servers.files.oneKilobyte.urlPath)
        let get = try await perform(session, HTTPRequest(method: .get, url: file))
        #expect(get.outcome.data?.count == ServedFiles.oneKilobyteByteCount)
        #expect(get.built == 0)

        var withFields = HTTPRequest(method: .get, url: hostileURL(servers.faultServer.baseURL, "/hostile/echo-header-lines", [:]))
        withFields.headerFields = [HTTPField.Name("X-One")!: "1", .accept: "text/plain"]
        withFields.headerFields.append(HTTPField(name: HTTPField.Name("x-one")!, value: "2"))
        let echoed = try await perform(session, withFields)
        struct Lines: Decodable { let lines: [[String]] }
        let lines = try JSONDecoder().decode(Lines.self, from: echoed.outcome.data ?? Data()).lines
        #expect(lines.filter { $0[0].lowercased() == "x-one" || $0[0] == "Accept" } == [["X-One", "1"], ["Accept", "text/plain"],
                                                                                         ["x-one", "2"]])
        #expect(echoed.built == 0)

        var post = HTTPRequest(method: .post, url: servers.httpbin.url("/post"))
        post.headerFields[.contentType] = "application/octet-stream"
        let posted = try await perform(session, post, sending: Data("sent as it is".utf8))
        let json = try JSONSerialization.jsonObject(with: posted.outcome.data ?? Data()) as? [String: Any]
        #expect(json?["data"] as? String == "sent as it is")
        #expect(posted.built == 0)

        let downloaded = try await perform(session, HTTPRequest(method: .get, url: file), download: true)
        let saved = try #require(downloaded.outcome.temporaryFile)
        defer { try? FileManager.default.removeItem(at: saved) }
        #expect(try Data(contentsOf: saved).count == ServedFiles.oneKilobyteByteCount)
        #expect(downloaded.built == 0)

        // A 404 is an answer like any other.
        let missing = try await perform(session, HTTPRequest(method: .get, url: servers.httpbin.url("/status/404")))
        #expect(try LeanSession.httpResponse(of: missing.outcome.task.updateStorage { $0.responseHead }, url: nil).status.code == 404)
        #expect(missing.built == 0)
    }

    @Test func whatReadsARequestGetsOneMadeFromIt() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let session = manager.session
        let marker = "fields-\(UUID().uuidString)"

        // A redirect the engine follows (it does, with a cookie store, so each hop carries its cookies):
        // the next hop is a URLRequest made from the HTTPRequest, and the task says where it ended.
        let target = servers.httpbin.url("/get?\(marker)")
        let redirect = hostileURL(servers.faultServer.baseURL, "/hostile/redirect", ["to": target.absoluteString])
        var request = HTTPRequest(method: .get, url: redirect)
        request.headerFields[.accept] = "application/json"
        let followed = try await perform(session, request)
        #expect(followed.built >= 1)
        #expect(followed.outcome.task.currentRequest?.url == target)
        let echoed = try JSONSerialization.jsonObject(with: followed.outcome.data ?? Data()) as? [String: Any]
        #expect((echoed?["headers"] as? [String: String])?["Accept"] == "application/json")

        // A response the cache may store is stored, and answers the next call without the network.
        let cacheable = servers.httpbin.url("/cache/60?\(marker)-cache")
        let first = try await session.data(for: HTTPRequest(method: .get, url: cacheable))
        let second = try await session.data(for: HTTPRequest(method: .get, url: cacheable))
        #expect(first.1.status.code == 200)
        #expect(second.1.status.code == 200)
        #expect(second.0 == first.0)
        #expect(await servers.loggedRequestCount(on: .httpbin, containing: "\(marker)-cache", expecting: 1) == 1)
    }
}
