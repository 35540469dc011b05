// Mutual TLS against nginx with `ssl_verify_client on`: the right identity from PEM, DER or PKCS#12 is
// accepted; none, or one no trusted CA issued, is refused; identities that cannot be read fail early; a
// client-certificate challenge handler chooses the identity per connection.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

@Suite("Core: mutual TLS with a client identity")
struct CoreMutualTLSTests {
    /// A manager trusting the test root and presenting `identity`.
    private func manager(_ servers: IntegrationServers, _ identity: ClientIdentity?) throws -> HTTPSessionManager {
        let manager = coreManager()
        // Every status is a body to read here: nginx's refusals come as 400 pages.
        manager.responseSerializer = HTTPResponseSerializer(validation: HTTPResponseValidation(acceptableStatusCodes: nil))
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        manager.clientIdentity = identity
        return manager
    }

    /// `/whoami` on the mutual-TLS port: (status, body as text).
    private func whoAmI(_ manager: HTTPSessionManager, _ servers: IntegrationServers) async -> (Int?, String?) {
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.nginx.mutualTLSURL("/whoami")), completionHandler: done)
        }
        #expect(result.error == nil, "\(String(describing: result.error))")
        return (result.response?.statusCode, (result.object as? Data).map { String(decoding: $0, as: UTF8.self) })
    }

    private func read(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    @Test func theRightIdentityIsAcceptedInEveryFormat() async throws {
        let servers = try await IntegrationServers.shared()
        let files = servers.certificates
        let identities = [
            "PEM chain and key": try ClientIdentity(pemCertificateChain: read(files.client.servedChain!),
                                                    pemPrivateKey: read(files.client.privateKey)),
            "one PEM with the key": try ClientIdentity(pemCertificateChain: read(files.client.servedChain!)
                                                        + read(files.client.privateKey)),
            "DER leaf and key": try ClientIdentity(derCertificate: read(files.client.der), derPrivateKey: read(files.clientKeyDER)),
            "PKCS#12": try ClientIdentity(pkcs12: read(files.clientPKCS12), passphrase: files.clientPKCS12Passphrase),
            // The seam's own value (AFProtocols), made without AFSecurity: PEM taken as given.
            "PEM values": ClientIdentity(certificateChainPEM: try read(files.client.servedChain!),
                                         privateKeyPEM: try read(files.client.privateKey)),
        ]
        for (name, identity) in identities {
            let manager = try manager(servers, identity)
            defer { manager.invalidateSession(cancelingTasks: true) }
            let (status, body) = await whoAmI(manager, servers)
            #expect(status == 200, "\(name)")
            #expect(body == "CN=AFNetworking Test Client\n", "\(name)")
        }
    }

    @Test func theLeanPathPresentsTheIdentityToo() async throws {
        let servers = try await IntegrationServers.shared()
        let identity = try ClientIdentity(pkcs12: read(servers.certificates.clientPKCS12),
                                          passphrase: servers.certificates.clientPKCS12Passphrase)
        let manager = try manager(servers, identity)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (data, response) = try await manager.session.data(for: URLRequest(url: servers.nginx.mutualTLSURL("/whoami")))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "CN=AFNetworking Test Client\n")
    }

    @Test func noIdentityOrAStrangersIsRefused() async throws {
        let servers = try await IntegrationServers.shared()
        let none = try manager(servers, nil)
        defer { none.invalidateSession(cancelingTasks: true) }
        let (noneStatus, noneBody) = await whoAmI(none, servers)
        #expect(noneStatus == 400)
        #expect(noneBody?.contains("No required SSL certificate was sent") == true)

        let files = servers.certificates
        let stranger = try manager(servers, try ClientIdentity(pemCertificateChain: read(files.stranger.pem),
                                                               pemPrivateKey: read(files.stranger.privateKey)))
        defer { stranger.invalidateSession(cancelingTasks: true) }
        let (strangerStatus, strangerBody) = await whoAmI(stranger, servers)
        #expect(strangerStatus == 400)
        #expect(strangerBody?.contains("The SSL certificate error") == true)
    }

    @Test func identitiesThatCannotBeReadFailWithTheirReason() async throws {
        let servers = try await IntegrationServers.shared()
        let files = servers.certificates
        #expect(throws: ClientIdentityError(.unreadablePKCS12)) {
            try ClientIdentity(pkcs12: read(files.clientPKCS12), passphrase: "wrong")
        }
        #expect(throws: ClientIdentityError(.unreadablePKCS12)) {
            try ClientIdentity(pkcs12: read(files.client.pem), passphrase: "")
        }
        #expect(throws: ClientIdentityError(.keyDoesNotMatchCertificate)) {
            try ClientIdentity(pemCertificateChain: read(files.client.pem), pemPrivateKey: read(files.stranger.privateKey))
        }
        #expect(throws: ClientIdentityError(.unreadablePrivateKey)) {
            try ClientIdentity(pemCertificateChain: read(files.client.pem))
        }
        #expect(throws: ClientIdentityError(.unreadableCertificate)) {
            try ClientIdentity(pemCertificateChain: Data("not a certificate".utf8), pemPrivateKey: read(files.client.privateKey))
        }
        #expect(throws: ClientIdentityError(.unreadableCertificate)) {
            try ClientIdentity(derCertificate: Data([0x30, 0x03, 0x02, 0x01]), derPrivateKey: read(files.clientKeyDER))
        }
        #expect(ClientIdentityError(.keyDoesNotMatchCertificate).localizedDescription
            == "The private key does not belong to the client certificate.")
    }

    // MARK: the client-certificate challenge

    /// Records the challenges a handler saw and answers each with `answer`.
    private final class ChallengeLog: Sendable {
        private let seen = Mutex<[ClientCertificateChallenge]>([])
        var challenges: [ClientCertificateChallenge] { seen.withLock { $0 } }

        func handler(_ answer: @escaping @Sendable () -> (URLSession.AuthChallengeDisposition, ClientIdentity?))
            -> @Sendable (SessionTask, ClientCertificateChallenge) -> (URLSession.AuthChallengeDisposition, ClientIdentity?) {
            { _, challenge in
                self.seen.withLock { $0.append(challenge) }
                return answer()
            }
        }
    }

    private func pkcs12Identity(_ servers: IntegrationServers) throws -> ClientIdentity {
        try ClientIdentity(pkcs12: read(servers.certificates.clientPKCS12), passphrase: servers.certificates.clientPKCS12Passphrase)
    }

    /// A manager presenting `sessionIdentity` whose challenge handler logs each challenge and gives `answer`.
    private func hookedManager(_ servers: IntegrationServers, sessionIdentity: ClientIdentity?,
                               answer: @escaping @Sendable () -> (URLSession.AuthChallengeDisposition, ClientIdentity?))
        throws -> (HTTPSessionManager, ChallengeLog) {
        let manager = try manager(servers, sessionIdentity)
        let log = ChallengeLog()
        manager.hooks.clientCertificateChallengeHandler = log.handler(answer)
        return (manager, log)
    }

    @Test func aChallengeHandlerChoosesTheIdentityOncePerConnection() async throws {
        let servers = try await IntegrationServers.shared()
        let identity = try pkcs12Identity(servers)
        let (manager, log) = try hookedManager(servers, sessionIdentity: nil) { (.useCredential, identity) }
        defer { manager.invalidateSession(cancelingTasks: true) }

        for _ in 0..<2 {
            let (status, body) = await whoAmI(manager, servers)
            #expect(status == 200)
            #expect(body == "CN=AFNetworking Test Client\n")
        }
        // The second request reused the connection: one challenge.
        let challenges = log.challenges
        #expect(challenges.count == 1)
        let challenge = try #require(challenges.first)
        #expect(challenge.protectionSpace.host == "localhost")
        #expect(challenge.protectionSpace.port == servers.nginx.mutualTLSPort)
        #expect(challenge.protectionSpace.protocol == "https")
        #expect(challenge.protectionSpace.realm == nil)
        #expect(challenge.protectionSpace.authenticationMethod == "NSURLAuthenticationMethodClientCertificate")
        // nginx names the CAs of its client bundle, in the bundle's order: the root, then the intermediate.
        let root = try read(servers.certificates.rootCA.der)
        let intermediate = try read(servers.certificates.intermediateCA.der)
        #expect(challenge.acceptableIssuers.count == 2)
        if challenge.acceptableIssuers.count == 2 {
            #expect(root.range(of: challenge.acceptableIssuers[0]) != nil)
            #expect(intermediate.range(of: challenge.acceptableIssuers[1]) != nil)
            #expect(intermediate.range(of: challenge.acceptableIssuers[0]) != nil)  // its issuer field
            #expect(root.range(of: challenge.acceptableIssuers[1]) == nil)
        }
    }

    @Test func everyNewConnectionIsAskedSinceNoSessionIsResumed() async throws {
        let servers = try await IntegrationServers.shared()
        let identity = try pkcs12Identity(servers)
        let (manager, log) = try hookedManager(servers, sessionIdentity: nil) { (.useCredential, identity) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.httpVersion = .http1_1  // HTTP/2 has no Connection: close
        for _ in 0..<2 {
            // Connection: close makes nginx end each connection, so the next request needs a handshake;
            // a resumed TLS session would skip the server's certificate request and the hook.
            var request = URLRequest(url: servers.nginx.mutualTLSURL("/whoami"))
            request.setValue("close", forHTTPHeaderField: "Connection")
            let result = await runTask { done in manager.dataTask(with: request, completionHandler: done) }
            #expect(result.response?.statusCode == 200)
        }
        #expect(log.challenges.count == 2)
    }

    @Test func defaultHandlingPresentsTheSessionsIdentity() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, log) = try hookedManager(servers, sessionIdentity: try pkcs12Identity(servers)) { (.performDefaultHandling, nil) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (status, body) = await whoAmI(manager, servers)
        #expect(status == 200)
        #expect(body == "CN=AFNetworking Test Client\n")
        #expect(log.challenges.count == 1)
    }

    @Test func rejectingTheProtectionSpaceSendsNoCertificateEvenWithASessionIdentity() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, log) = try hookedManager(servers, sessionIdentity: try pkcs12Identity(servers)) { (.rejectProtectionSpace, nil) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (status, body) = await whoAmI(manager, servers)
        #expect(status == 400)
        #expect(body?.contains("No required SSL certificate was sent") == true)
        #expect(log.challenges.count == 1)
    }

    @Test func aStrangersIdentityFromTheHandlerIsRefusedByTheServer() async throws {
        let servers = try await IntegrationServers.shared()
        let files = servers.certificates
        let stranger = try ClientIdentity(pemCertificateChain: read(files.stranger.pem), pemPrivateKey: read(files.stranger.privateKey))
        let manager = try manager(servers, try pkcs12Identity(servers))
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.hooks.clientCertificateChallengeHandler = { _, _ in (.useCredential, stranger) }
        let (status, body) = await whoAmI(manager, servers)
        #expect(status == 400)
        #expect(body?.contains("The SSL certificate error") == true)
    }

    @Test func cancellingTheChallengeCancelsTheTask() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, log) = try hookedManager(servers, sessionIdentity: try pkcs12Identity(servers)) { (.cancelAuthenticationChallenge, nil) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.nginx.mutualTLSURL("/whoami")), completionHandler: done)
        }
        #expect((result.error as? URLError)?.code == .cancelled)
        #expect(result.response == nil)
        #expect(log.challenges.count == 1)
    }

    @Test func aServerThatAsksForNoCertificateNeverCallsTheHandler() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, log) = try hookedManager(servers, sessionIdentity: nil) { (.cancelAuthenticationChallenge, nil) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.nginx.httpsURL("/health", scenario: .valid)), completionHandler: done)
        }
        #expect(result.error == nil)
        #expect(result.response?.statusCode == 200)
        #expect(log.challenges.isEmpty)
    }

    @Test func leanCallsPresentTheSessionsIdentityWithoutAsking() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, log) = try hookedManager(servers, sessionIdentity: try pkcs12Identity(servers)) { (.cancelAuthenticationChallenge, nil) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (data, response) = try await manager.session.data(for: URLRequest(url: servers.nginx.mutualTLSURL("/whoami")))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "CN=AFNetworking Test Client\n")
        #expect(log.challenges.isEmpty)
    }

}
