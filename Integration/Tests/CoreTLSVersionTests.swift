// The TLS versions a session may negotiate, against nginx ports that speak only TLS 1.2 or only TLS 1.3.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Core: TLS protocol versions")
struct CoreTLSVersionTests {
    /// A manager that trusts the test root, with the TLS range `configure` sets.
    private func manager(_ servers: IntegrationServers, _ configure: (URLSessionManager) -> Void) throws -> HTTPSessionManager {
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        configure(manager)
        return manager
    }

    private func fetch(_ manager: HTTPSessionManager, _ url: URL) async -> CoreResult {
        await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
    }

    @Test func theDefaultRangeIsTLS12AndUp() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = try manager(servers) { _ in }
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(manager.tlsMinimumSupportedProtocolVersion == .tlsv12)
        #expect(manager.tlsMaximumSupportedProtocolVersion == nil)
        for version in TLSSingleVersion.allCases {
            let result = await fetch(manager, servers.nginx.httpsURL("/files/1k.bin", only: version))
            #expect(result.error == nil, "\(version): \(String(describing: result.error))")
            #expect((result.object as? Data)?.count == 1024)
        }
    }

    @Test func aMinimumOf13RefusesATLS12Server() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = try manager(servers) { $0.tlsMinimumSupportedProtocolVersion = .tlsv13 }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let refused = await fetch(manager, servers.nginx.httpsURL("/files/1k.bin", only: .tls12))
        #expect(refused.code == URLError.Code.secureConnectionFailed.rawValue)
        let accepted = await fetch(manager, servers.nginx.httpsURL("/files/1k.bin", only: .tls13))
        #expect((accepted.object as? Data)?.count == 1024)

        // The lean path applies the same range.
        await #expect(throws: URLError.self) {
            _ = try await manager.session.data(for: URLRequest(url: servers.nginx.httpsURL("/files/1k.bin", only: .tls12)))
        }
        do {
            _ = try await manager.session.data(for: URLRequest(url: servers.nginx.httpsURL("/files/1k.bin", only: .tls12)))
        } catch let error as URLError {
            #expect(error.code == .secureConnectionFailed)
        }
    }

    @Test func aMaximumOf12RefusesATLS13Server() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = try manager(servers) { $0.tlsMaximumSupportedProtocolVersion = .tlsv12 }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let refused = await fetch(manager, servers.nginx.httpsURL("/files/1k.bin", only: .tls13))
        #expect(refused.code == URLError.Code.secureConnectionFailed.rawValue)
        let accepted = await fetch(manager, servers.nginx.httpsURL("/files/1k.bin", only: .tls12))
        #expect((accepted.object as? Data)?.count == 1024)
    }

    @Test func anEmptyRangeFailsBeforeAnythingIsSent() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = try manager(servers) { manager in
            manager.updateSettings { settings in
                settings.tlsMinimumSupportedProtocolVersion = .tlsv13
                settings.tlsMaximumSupportedProtocolVersion = .tlsv12
            }
        }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await fetch(manager, servers.nginx.httpsURL("/files/1k.bin", only: .tls13))
        #expect(result.code == URLError.Code.secureConnectionFailed.rawValue)
        #expect(result.error?.localizedDescription
            == "The session's TLS range is empty: its minimum (tlsv13) is above its maximum (tlsv12).")
        // Plain HTTP has no handshake: the range does not apply.
        let plain = await fetch(manager, servers.nginx.httpURL("/files/1k.bin"))
        #expect((plain.object as? Data)?.count == 1024)
    }
}
