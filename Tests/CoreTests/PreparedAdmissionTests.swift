import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

/// The host a task counts against is read on the thread that starts it (`prepareToStart`), with the
/// session's proxy, and the engine uses what was read.
@Suite("Engine: the admission target read before the engine")
struct PreparedAdmissionTests {
    private func prepared(_ manager: URLSessionManager, _ string: String) throws -> AdmissionTarget? {
        let task = manager.dataTask(with: URLRequest(url: try #require(URL(string: string)))) { _, _, _ in }
        manager.prepareToStart(task)
        return task.updateStorage { $0.preparedAdmission }
    }

    @Test func aDirectRequestCountsAgainstItsHostAndPort() throws {
        let manager = makeManager()
        let target = try #require(try prepared(manager, "https://Example.org:8443/a?b"))
        #expect(target.key == "example.org:8443")
        #expect(target.isHTTPS)
        #expect(!target.viaProxy)
        #expect(try prepared(manager, "file:///tmp/x") == nil)
    }

    @Test func aProxiedRequestCountsAgainstItsProxyButAnExceptionDoesNot() throws {
        let manager = makeManager {
            $0.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": "proxy.test", "HTTPPort": 3128,
                                            "ExceptionsList": ["direct.test"]]
        }
        let proxied = try #require(try prepared(manager, "http://a.test/x"))
        #expect(proxied.key == "http://proxy.test:3128")
        #expect(proxied.viaProxy)
        #expect(!proxied.isHTTPS)
        let direct = try #require(try prepared(manager, "http://direct.test/x"))
        #expect(direct.key == "direct.test:80")
        #expect(!direct.viaProxy)
    }

    @Test func theSettingsLookAtProxiesOnlyWhenTheSessionHasAny() throws {
        let url = try #require(URL(string: "http://a.test/"))
        #expect(EngineSettings(configuration: .ephemeral).proxy(for: url) == nil)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = ["SOCKSEnable": 1, "SOCKSProxy": "socks.test"]
        #expect(EngineSettings(configuration: configuration).proxy(for: url) == "socks5h://socks.test:1080")
    }

    /// The engine takes the prepared target when it starts the task: a later start (after a wait for
    /// connectivity) reads the task's URL as it is then.
    @Test func theEngineTakesThePreparedTarget() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let done = AsyncStream<Void>.makeStream()
        let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/8"))) { _, _, _ in
            done.continuation.yield()
        }
        task.resume()
        for await _ in done.stream { break }
        #expect(task.state == .completed)
        #expect(task.updateStorage { $0.preparedAdmission } == nil)
    }
}
