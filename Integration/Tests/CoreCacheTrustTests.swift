// The HTTP cache under two sessions with different trust (issue 25, item 4): a cached https answer
// carries the trust it was fetched under and never answers a session whose trust is stricter.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Core: a cached answer never answers a session whose trust is stricter")
struct CoreCacheTrustTests {
    /// A manager on `cache` whose policy trusts the test root (and pins `pinned` when given).
    private func manager(_ servers: IntegrationServers, cache: URLCache, pinned: URL? = nil,
                         minimum: TLSProtocolVersion = .tlsv12) throws -> HTTPSessionManager {
        // An https base URL: a pinning policy is refused on any other.
        let manager = coreManager(baseURL: URL(string: "https://127.0.0.1/")) { $0.urlCache = cache }
        manager.responseSerializer = HTTPResponseSerializer()
        var policy = pinned.map { SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try! Data(contentsOf: $0)]) }
            ?? SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        manager.tlsMinimumSupportedProtocolVersion = minimum
        return manager
    }

    private func body(_ manager: HTTPSessionManager, _ url: URL) async -> (body: String?, code: URLError.Code?) {
        do {
            let (data, _) = try await manager.session.data(for: URLRequest(url: url))
            return (String(decoding: data, as: UTF8.self), nil)
        } catch {
            return (nil, (error as? URLError)?.code)
        }
    }

    @Test func aStricterSessionGoesToTheNetworkAndItsHandshakeDecides() async throws {
        let servers = try await IntegrationServers.shared()
        // One URLCache for all, as URLCache.shared is by default, but under the run's directory.
        let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 22,
                             diskPath: servers.runDirectory.appendingPathComponent("trust-cache-\(UUID().uuidString)").path)
        let key = UUID().uuidString
        let url = servers.nginx.httpsURL("/hostile/flaky?key=\(key)&max-age=600", only: .tls12)

        let storing = try manager(servers, cache: cache)
        #expect(await body(storing, url).body == "attempt 1")
        // Another manager reads what this one's writer queue put in the shared URLCache.
        #expect(await waitUntil(10) { cache.currentMemoryUsage > 0 || cache.currentDiskUsage > 0 })
        // The same trust: answered from the cache.
        #expect(await body(try manager(servers, cache: cache), url).body == "attempt 1")
        // Pinning a certificate the server does not have: its own handshake fails, never the cache's 200.
        let pinningStranger = try manager(servers, cache: cache, pinned: servers.certificates.stranger.der)
        #expect(await body(pinningStranger, url).code == .serverCertificateUntrusted)
        // Asking TLS 1.3 of a TLS 1.2 server: the handshake fails.
        let strictTLS = try manager(servers, cache: cache, minimum: .tlsv13)
        #expect(await body(strictTLS, url).code == .secureConnectionFailed)
        // Pinning the intermediate CA the server sends: the stored chain passes that policy, so the cache answers.
        let pinningLeaf = try manager(servers, cache: cache, pinned: servers.certificates.intermediateCA.der)
        #expect(await body(pinningLeaf, url).body == "attempt 1")
        // A session without a policy (the system CAs, which do not know the test root) is not answered
        // with what a policy accepted: it loads, and its handshake fails.
        let systemCAs = coreManager { $0.urlCache = cache }
        #expect(await body(systemCAs, url).code == .serverCertificateUntrusted)
        #expect(try await flakyCount(key, servers) == 1)
    }

}
