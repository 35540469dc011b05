import AFProtocols
import AFSecurity
import Foundation
import Testing

@Suite("Chain evaluation: reasons, verification time, trust stores, bad chains")
struct ChainEvaluationTests {
    /// Certificate pinning of a self-signed certificate: AF's way to trust one for a domain.
    private func selfSignedPolicy(pinning certificate: Data, at date: Date = Fixture.httpBinDate) -> SecurityPolicy {
        var policy = policy(.certificate, pins: [certificate], at: date)
        policy.allowInvalidCertificates = true
        return policy
    }

    @Test func emptyChainIsRefusedInEveryMode() throws {
        let empty = ServerTrust(certificateChain: [], host: "httpbin.org")
        var permissive = policy(.none)
        permissive.allowInvalidCertificates = true
        for policy in [policy(.none), permissive, policy(.publicKey, pins: [try Fixture.httpBinLeaf()])] {
            #expect(policy.evaluate(empty, forDomain: nil) == false)
            #expect(rejection(policy, empty, domain: nil) == .emptyChain)
        }
    }

    @Test func malformedCertificateIsNamedByIndex() throws {
        var chain = try Fixture.httpBinTrust().certificateChain
        chain[1] = chain[1].prefix(200)
        let trust = ServerTrust(certificateChain: chain, host: "httpbin.org")
        #expect(rejection(policy(.none), trust, domain: "httpbin.org") == .malformedCertificate(index: 1))
        #expect(rejection(policy(.none), ServerTrust(certificateChain: [Data()], host: "h"), domain: nil)
                == .malformedCertificate(index: 0))
    }

    @Test func chainOfAHundredCertificatesIsRefused() throws {
        let chain = try Fixture.httpBinTrust().certificateChain
        let long = ServerTrust(certificateChain: chain + Array(repeating: chain[1], count: 96), host: "httpbin.org")
        #expect(long.certificateChain.count == 100)
        #expect(rejection(policy(.none), long, domain: "httpbin.org")
                == .untrustedChain(detail: "the server sent 100 certificates, more than the 32 accepted"))
    }

    @Test func chainAtTheLengthLimitIsEvaluated() throws {
        let chain = try Fixture.httpBinTrust().certificateChain
        let padded = ServerTrust(certificateChain: chain + Array(repeating: chain[1], count: 28), host: "httpbin.org")
        #expect(padded.certificateChain.count == SecurityPolicy.maximumCertificateChainLength)
        #expect(policy(.none).evaluate(padded, forDomain: "httpbin.org") == true)
    }

    @Test func expiredAndNotYetValidLeavesAreNamed() throws {
        let trust = try Fixture.httpBinTrust()
        #expect(rejection(policy(.none, at: Fixture.utc(2021, 3, 1)), trust, domain: "httpbin.org") == .expired(index: 0))
        #expect(rejection(policy(.none, at: Fixture.utc(2019, 12, 1)), trust, domain: "httpbin.org") == .expired(index: 0))
        // The ADN intermediate (DigiCert High Assurance CA-3) expired in 2021, after its leaf.
        #expect(rejection(policy(.none, at: Fixture.utc(2016, 1, 1)), try Fixture.adnTrust(), domain: nil) == .expired(index: 0))
    }

    @Test func extremeVerificationDatesAreOutsideEveryValidity() throws {
        let trust = try Fixture.httpBinTrust()
        // Every certificate is out of its validity; OpenSSL checks from the top and names the anchor
        // it built to (the store's Amazon Root CA 1, depth 2).
        #expect(rejection(policy(.none, at: .distantFuture), trust, domain: "httpbin.org") == .expired(index: 2))
        #expect(rejection(policy(.none, at: .distantPast), trust, domain: "httpbin.org") == .expired(index: 2))
    }

    @Test func verificationTimeDefaultsToNow() throws {
        var policy = SecurityPolicy.default
        #expect(policy.verificationDate == nil)
        // Now both httpbin_0 (2021-02-18) and Amazon Server CA 1B (2025-10-19) are expired; OpenSSL
        // checks validity from the anchor down, so it names the intermediate.
        #expect(rejection(policy, try Fixture.httpBinTrust(), domain: "httpbin.org") == .expired(index: 1))
        policy.verificationDate = Fixture.httpBinDate
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: "httpbin.org") == true)
    }

    @Test func injectedTrustStoreReplacesTheSystemOne() throws {
        var policy = policy(.none)
        policy.trustStore = try TrustStore(certificates: [try Fixture.starfieldServicesRoot()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: "httpbin.org") == true)
        policy.trustStore = try TrustStore(certificates: [try Fixture.data("ADN.net/ADNNetServerTrustChain/adn_2.cer")])
        #expect(rejection(policy, try Fixture.httpBinTrust(), domain: "httpbin.org")
                == .untrustedChain(detail: "unable to get local issuer certificate (certificate 3)"))
        // An intermediate alone anchors the chain (partial chain, like SecTrustSetAnchorCertificates).
        policy.trustStore = try TrustStore(certificates: [try Fixture.amazonIntermediate()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: "httpbin.org") == true)
    }

    @Test func leafAloneNeedsItsIntermediateFromTheServer() throws {
        let leafOnly = ServerTrust(certificateChain: [try Fixture.httpBinLeaf()], host: "httpbin.org")
        #expect(rejection(policy(.none), leafOnly, domain: "httpbin.org")
                == .untrustedChain(detail: "unable to get local issuer certificate (certificate 0)"))
    }

    @Test(arguments: [("httpbin.org", true), ("HTTPBin.ORG", true), ("httpbin.org.", true), ("www.httpbin.org", true),
                      ("a.b.httpbin.org", false), ("xhttpbin.org", false), ("", false), ("10.0.0.1", false),
                      (" httpbin.org", false), ("httpbin.org\u{0}.evil.com", false)])
    func hostNamesMatchTheSubjectAltNames(host: String, accepted: Bool) throws {
        #expect(policy(.none).evaluate(try Fixture.httpBinTrust(), forDomain: host) == accepted)
    }

    @Test func commonNameCountsOnlyWithoutSubjectAltName() throws {
        // foobar.com.cer names the host only in its Common Name; AltName.cer has CN "Alt Name" and
        // SAN foobar.com. Certificate pinning anchors the self-signed certificate (with invalid
        // certificates allowed, as AF requires for self-signed ones) so the host check decides.
        let commonName = try Fixture.selfSignedWithCommonNameDomain()
        #expect(selfSignedPolicy(pinning: commonName).evaluate(Fixture.trust(with: commonName), forDomain: "foobar.com") == true)
        let altName = try Fixture.selfSignedWithDNSNameDomain()
        let altNamePolicy = selfSignedPolicy(pinning: altName)
        #expect(altNamePolicy.evaluate(Fixture.trust(with: altName), forDomain: "foobar.com") == true)
        #expect(rejection(altNamePolicy, Fixture.trust(with: altName), domain: "alt name") == .hostMismatch(host: "alt name"))
    }

    @Test func ipAddressesMatchOnlyIPSubjectAltNames() throws {
        let factory = try GeneratedCertificates()
        let both = try factory.makeLeaf("both", key: "k1", commonName: "example.com", issuer: nil,
                                        extensions: ["subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost"])
        let ipOnly = try factory.makeLeaf("iponly", key: "k1", commonName: "example.com", issuer: nil,
                                          extensions: ["subjectAltName=IP:127.0.0.1"])
        let ipInCommonName = try factory.makeLeaf("cn-ip", key: "k1", commonName: "127.0.0.1", issuer: nil, extensions: [])
        let bothPolicy = selfSignedPolicy(pinning: both, at: Date())
        for host in ["127.0.0.1", "[::1]", "::1", "localhost", "LOCALHOST"] {
            #expect(bothPolicy.evaluate(Fixture.trust(with: both, host: host), forDomain: host) == true, "\(host)")
        }
        for host in ["127.0.0.2", "::2", "example.com"] {
            #expect(rejection(bothPolicy, Fixture.trust(with: both, host: host), domain: host) == .hostMismatch(host: host))
        }
        // Any subjectAltName, even only an IP one, rules the Common Name out.
        let ipOnlyPolicy = selfSignedPolicy(pinning: ipOnly, at: Date())
        #expect(rejection(ipOnlyPolicy, Fixture.trust(with: ipOnly), domain: "example.com") == .hostMismatch(host: "example.com"))
        // An IP address is never looked up in the Common Name.
        let cnPolicy = selfSignedPolicy(pinning: ipInCommonName, at: Date())
        #expect(rejection(cnPolicy, Fixture.trust(with: ipInCommonName), domain: "127.0.0.1") == .hostMismatch(host: "127.0.0.1"))
    }

    @Test func domainValidationRequiresTheTLSServerPurpose() throws {
        let factory = try GeneratedCertificates()
        let root = try factory.makeCA("root")
        let clientOnly = try factory.makeLeaf("client", key: "client", commonName: "localhost", issuer: "root",
                                              extensions: ["subjectAltName=DNS:localhost", "extendedKeyUsage=clientAuth"])
        var policy = policy(.none, at: Date())
        policy.trustStore = try TrustStore(certificates: [root])
        let trust = Fixture.trust(with: clientOnly, host: "localhost")
        #expect(rejection(policy, trust, domain: "localhost")
                == .untrustedChain(detail: "unsuitable certificate purpose (certificate 0)"))
        // Without domain validation AF uses the basic X.509 policy, which ignores the purpose.
        policy.validatesDomainName = false
        #expect(policy.evaluate(trust, forDomain: "localhost") == true)
    }

    @Test func publicKeyPinningSurvivesAReissuedLeafAndCertificatePinningDoesNot() throws {
        let factory = try GeneratedCertificates()
        let root = try factory.makeCA("root")
        let original = try factory.makeLeaf("original", key: "server", commonName: "localhost", issuer: "root",
                                            extensions: ["subjectAltName=DNS:localhost"])
        let reissued = try factory.makeLeaf("reissued", key: "server", commonName: "localhost", issuer: "root",
                                            extensions: ["subjectAltName=DNS:localhost"])
        let rekeyed = try factory.makeLeaf("rekeyed", key: "other", commonName: "localhost", issuer: "root",
                                           extensions: ["subjectAltName=DNS:localhost"])
        let store = try TrustStore(certificates: [root])
        var keyPolicy = policy(.publicKey, pins: [original], at: Date())
        keyPolicy.trustStore = store
        #expect(keyPolicy.evaluate(Fixture.trust(with: reissued, host: "localhost"), forDomain: "localhost") == true)
        #expect(rejection(keyPolicy, Fixture.trust(with: rekeyed, host: "localhost"), domain: "localhost") == .noPinMatched)

        var certificatePolicy = policy(.certificate, pins: [original], at: Date())
        certificatePolicy.trustStore = store
        #expect(certificatePolicy.evaluate(Fixture.trust(with: original, host: "localhost"), forDomain: "localhost") == true)
        #expect(certificatePolicy.evaluate(Fixture.trust(with: reissued, host: "localhost"), forDomain: "localhost") == false)
        // Pinning the root instead accepts every leaf it issued.
        certificatePolicy.pinnedCertificates = [root]
        #expect(certificatePolicy.evaluate(Fixture.trust(with: rekeyed, host: "localhost"), forDomain: "localhost") == true)
    }

    @Test func garbagePinnedCertificatesAreSkipped() throws {
        let leaf = try Fixture.httpBinLeaf()
        let policy = policy(.certificate, pins: [Data("garbage".utf8), leaf.prefix(100), leaf])
        #expect(policy.pinnedCertificates.count == 3)
        #expect(policy.pinnedPublicKeys.count == 1)
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: "httpbin.org") == true)
        let onlyGarbage = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Data("garbage".utf8)])
        #expect(rejection(onlyGarbage, try Fixture.httpBinTrust(), domain: nil) != nil)
    }

    @Test func errorCarriesTheHost() throws {
        do {
            try policy(.none).validate(try Fixture.httpBinTrust(), forDomain: "apple.com")
            Issue.record("accepted")
        } catch let error as ServerTrustEvaluationError {
            #expect(error == ServerTrustEvaluationError(reason: .hostMismatch(host: "apple.com"), host: "apple.com"))
            #expect(error.description == "Server trust for apple.com rejected: the certificate does not name apple.com")
        }
    }

    @Test func concurrentEvaluationsShareOnePolicy() async throws {
        let trust = try Fixture.httpBinTrust()
        let adn = try Fixture.adnTrust()
        let shared = policy(.publicKey, pins: [try Fixture.amazonIntermediate()])
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var accepted = true
                    var refused = true
                    for _ in 0..<25 {
                        accepted = accepted && shared.evaluate(trust, forDomain: "httpbin.org")
                        refused = refused && !shared.evaluate(adn, forDomain: nil)
                    }
                    return (accepted, refused)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0.0 && $0.1 })
    }
}
