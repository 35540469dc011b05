// SecurityPolicy deciding inside the TLS handshake (Core's verify hook) against the harness's nginx,
// with certificates generated at test time (root CA, intermediate, one leaf per scenario).
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Security end to end: policies inside the TLS handshake against nginx")
struct SecurityEndToEndTests {
    /// The harness root CA as the policy's trust store (the distribution's bundle does not hold it).
    private func rootStore(_ servers: IntegrationServers) throws -> TrustStore {
        try TrustStore(contentsOf: servers.certificates.rootCA.der)
    }

    private func certificate(_ files: CertificateFiles) throws -> Data {
        try SecurityPolicy.certificate(fromDER: Data(contentsOf: files.der))
    }

    /// A policy trusting the harness root, for `mode` and `pins`.
    private func policy(_ servers: IntegrationServers, _ mode: SSLPinningMode = .none, pins: [Data] = []) throws -> SecurityPolicy {
        var policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: Set(pins))
        policy.trustStore = try rootStore(servers)
        return policy
    }

    /// GET /health on `scenario`'s port through a manager with `policy`; the body, or the error.
    private func health(_ servers: IntegrationServers, _ scenario: TLSScenario, _ policy: SecurityPolicy,
                        host: String = "localhost") async throws -> Data? {
        let manager = HTTPSessionManager(baseURL: servers.nginx.httpsURL("/", scenario: scenario, host: host))
        manager.responseSerializer = HTTPResponseSerializer()
        try manager.setSecurityPolicy(policy)
        let result = try await manager.get("health")
        return result.object as? Data
    }

    /// Expects AF's -1202 error for `scenario`, with its exact description and userInfo.
    private func expectUntrusted(_ servers: IntegrationServers, _ scenario: TLSScenario, _ policy: SecurityPolicy,
                                 sourceLocation: SourceLocation = #_sourceLocation) async throws {
        do {
            _ = try await health(servers, scenario, policy)
            Issue.record("\(scenario) was accepted", sourceLocation: sourceLocation)
        } catch {
            let error = error as NSError
            #expect(error.domain == NSURLErrorDomain, sourceLocation: sourceLocation)
            #expect(error.code == -1202, sourceLocation: sourceLocation)
            #expect(error.localizedDescription == "The certificate for this server is invalid. You might be connecting to a "
                    + "server that is pretending to be “localhost” which could put your confidential information at risk.",
                    sourceLocation: sourceLocation)
            let url = servers.nginx.httpsURL("/health", scenario: scenario)
            #expect((error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.absoluteString == url.absoluteString,
                    sourceLocation: sourceLocation)
            #expect(error.userInfo["NSErrorFailingURLStringKey"] as? String == url.absoluteString, sourceLocation: sourceLocation)
            #expect((error.userInfo[peerTrustErrorKey] as? ServerTrust)?.certificateChain.isEmpty == false,
                    sourceLocation: sourceLocation)
        }
    }

    @Test func defaultPolicyAcceptsTheHarnessChainWhenItsRootIsTrusted() async throws {
        let servers = try await IntegrationServers.shared()
        #expect(try await health(servers, .valid, policy(servers)) == Data("ok\n".utf8))
    }

    @Test(arguments: [TLSScenario.selfSigned, .expired, .wrongHost])
    func defaultPolicyRejectsBadLeaves(scenario: TLSScenario) async throws {
        let servers = try await IntegrationServers.shared()
        try await expectUntrusted(servers, scenario, policy(servers))
    }

    @Test func defaultPolicyWithTheSystemStoreRejectsTheHarnessChain() async throws {
        let servers = try await IntegrationServers.shared()
        try await expectUntrusted(servers, .valid, SecurityPolicy.default)
    }

    @Test func certificatePinningOfLeafIntermediateAndRootEachPasses() async throws {
        let servers = try await IntegrationServers.shared()
        let certificates = servers.certificates
        for pin in [certificates.leaf(.valid), certificates.intermediateCA, certificates.rootCA] {
            let policy = try policy(servers, .certificate, pins: [certificate(pin)])
            #expect(try await health(servers, .valid, policy) == Data("ok\n".utf8), "\(pin.der.lastPathComponent)")
        }
    }

    @Test func aPinOfAnUnrelatedCertificateFailsWithMinus1202() async throws {
        let servers = try await IntegrationServers.shared()
        let unrelated = try certificate(servers.certificates.leaf(.selfSigned))
        try await expectUntrusted(servers, .valid, policy(servers, .certificate, pins: [unrelated]))
        try await expectUntrusted(servers, .valid, policy(servers, .publicKey, pins: [unrelated]))
    }

    @Test func publicKeyPinningSurvivesAReissuedLeafAndFailsWithANewKey() async throws {
        let servers = try await IntegrationServers.shared()
        let certificates = servers.certificates
        let suffix = UUID().uuidString.prefix(8)
        let sameKey = try await certificates.issueLeaf(named: "reissued-\(suffix)", privateKey: certificates.leaf(.valid).privateKey)
        let otherKey = try await certificates.issueLeaf(named: "rekeyed-\(suffix)", privateKey: certificates.leaf(.wrongHost).privateKey)
        #expect(try certificate(sameKey) != certificate(certificates.leaf(.valid)))
        #expect(try await health(servers, .valid, policy(servers, .publicKey, pins: [certificate(sameKey)])) == Data("ok\n".utf8))
        try await expectUntrusted(servers, .valid, policy(servers, .publicKey, pins: [certificate(otherKey)]))
    }

    @Test func allowInvalidCertificatesWithPinningAcceptsTheSelfSignedLeaf() async throws {
        let servers = try await IntegrationServers.shared()
        var policy = SecurityPolicy(pinningMode: .certificate,
                                    pinnedCertificates: [try certificate(servers.certificates.leaf(.selfSigned))])
        policy.allowInvalidCertificates = true
        #expect(try await health(servers, .selfSigned, policy) == Data("ok\n".utf8))
    }

    @Test func sessionManagerRefusesAPinningPolicyWithoutAnHTTPSBaseURL() async throws {
        let servers = try await IntegrationServers.shared()
        let pinning = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try certificate(servers.certificates.rootCA)])
        for baseURL in [servers.nginx.httpURL("/"), nil] {
            let manager = HTTPSessionManager(baseURL: baseURL)
            #expect(throws: InvalidSecurityPolicyError.self) { try manager.setSecurityPolicy(pinning) }
            #expect(throws: Never.self) { try manager.setSecurityPolicy(SecurityPolicy.default) }
        }
    }

    @Test func spkiPinSetPassesAndAWrongPinFails() async throws {
        let servers = try await IntegrationServers.shared()
        var policy = try policy(servers)
        let intermediatePin = try PublicKeyPin(certificate: certificate(servers.certificates.intermediateCA))
        let unrelatedPin = try PublicKeyPin(certificate: certificate(servers.certificates.leaf(.selfSigned)))
        policy.publicKeyPinSets = [try PublicKeyPinSet(hostPattern: "localhost", pins: [unrelatedPin, intermediatePin])]
        #expect(try await health(servers, .valid, policy) == Data("ok\n".utf8))
        policy.publicKeyPinSets = [try PublicKeyPinSet(hostPattern: "localhost", pins: [unrelatedPin])]
        try await expectUntrusted(servers, .valid, policy)
    }
}
