import AFProtocols
import AFSecurity
import Foundation
import Testing

// AFNetworking's 46 AFSecurityPolicyTests cases (4.0.1, httpbinorg_02182021 and the Amazon chain),
// with AF's expected results. The trusts are the fixture folders' certificates in name order, the
// verification time is pinned inside the certificates' validity, and the "system" trust store is the
// distribution's CA bundle (/etc/ssl/certs holds Amazon Root CA 1, Starfield and DigiCert roots).
// Negative cases also assert the reason the throwing variant gives.

@Suite("AFSecurityPolicyTests: default policy")
struct DefaultPolicyTests {
    @Test func defaultPolicyPinningModeIsSetToNone() {
        #expect(SecurityPolicy.default.pinningMode == .none)
    }

    @Test func defaultPolicyHasInvalidCertificatesAreDisabledByDefault() {
        #expect(SecurityPolicy.default.allowInvalidCertificates == false)
    }

    @Test func defaultPolicyHasDomainNamesAreValidatedByDefault() {
        #expect(SecurityPolicy.default.validatesDomainName == true)
    }

    @Test func defaultPolicyHasNoPinnedCertificates() {
        #expect(SecurityPolicy.default.pinnedCertificates.count == 0)
        #expect(SecurityPolicy.default.pinnedPublicKeys.count == 0)
    }

    @Test func defaultPolicyDoesAllowHTTPBinOrgCertificate() throws {
        #expect(policy(.none).evaluate(try Fixture.httpBinTrust(), forDomain: nil) == true)
    }

    @Test func defaultPolicyDoesAllowHTTPBinOrgCertificateForValidDomainName() throws {
        #expect(policy(.none).evaluate(try Fixture.httpBinTrust(), forDomain: "httpbin.org") == true)
    }

    @Test func defaultPolicyDoesNotAllowInvalidCertificate() throws {
        let trust = Fixture.trust(with: try Fixture.selfSignedWithoutDomain())
        #expect(policy(.none).evaluate(trust, forDomain: nil) == false)
        #expect(rejection(policy(.none), trust, domain: nil)
                == .untrustedChain(detail: "self-signed certificate (certificate 0)"))
    }

    @Test func defaultPolicyDoesNotAllowCertificateWithInvalidDomainName() throws {
        let trust = try Fixture.httpBinTrust()
        #expect(policy(.none).evaluate(trust, forDomain: "apple.com") == false)
        #expect(rejection(policy(.none), trust, domain: "apple.com") == .hostMismatch(host: "apple.com"))
    }
}

/// The public-key and certificate pinning cases are the same twelve in both modes.
@Suite("AFSecurityPolicyTests: public key and certificate pinning")
struct PinningTests {
    static let modes: [SSLPinningMode] = [.publicKey, .certificate]

    @Test(arguments: modes)
    func policyWithPinningModeHasPinnedCertificates(mode: SSLPinningMode) throws {
        let certificates = try SecurityPolicy.certificates(in: Fixture.directory, recursive: true)
        let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: certificates)
        // 24 files, 15 distinct certificates (the named pins repeat the chain folders' files),
        // 14 distinct keys (the GeoTrust root and its cross-signed copy share one).
        #expect(policy.pinnedCertificates.count == 15)
        #expect(policy.pinnedPublicKeys.count == 14)
    }

    @Test(arguments: modes)
    func policyWithPinningModeHasHTTPBinOrgPinnedCertificate(mode: SSLPinningMode) throws {
        // AF reads its test bundle; ours keeps the certificates in sub-folders of its resources.
        let certificates = try SecurityPolicy.certificates(in: Bundle.module, recursive: true)
        #expect(try SecurityPolicy.certificates(in: Bundle.module).isEmpty)
        let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: certificates)
        let leaf = try Fixture.httpBinLeaf()
        #expect(policy.pinnedCertificates.filter { $0 == leaf }.count == 1)
    }

    @Test(arguments: modes)
    func allowsHTTPBinOrgServerTrustWithHTTPBinOrgLeafCertificatePinned(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.httpBinLeaf()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: nil) == true)
    }

    @Test(arguments: modes)
    func allowsHTTPBinOrgServerTrustWithHTTPBinOrgIntermediateCertificatePinned(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.amazonIntermediate()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: nil) == true)
    }

    @Test(arguments: modes)
    func allowsHTTPBinOrgServerTrustWithHTTPBinOrgRootCertificatePinned(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.amazonRoot()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: nil) == true)
    }

    @Test(arguments: modes)
    func allowsHTTPBinOrgServerTrustWithEntireCertificateChainPinned(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.httpBinLeaf(), try Fixture.amazonIntermediate(),
                                         try Fixture.amazonRoot(), try Fixture.starfieldServicesRoot()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: nil) == true)
    }

    @Test(arguments: modes)
    func allowsHTTPBinOrgServerTrustWithHTTPBinOrgPinnedCertificateAndAdditionalPinnedCertificates(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.httpBinLeaf(), try Fixture.selfSignedWithCommonNameDomain()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: nil) == true)
    }

    @Test(arguments: modes)
    func allowsHTTPBinOrgServerTrustWithHTTPBinOrgLeafCertificatePinnedAndValidDomainName(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.httpBinLeaf()])
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: "httpbin.org") == true)
    }

    @Test(arguments: modes)
    func andNoPinnedCertificatesDoesNotAllowHTTPBinOrgServerTrust(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [])
        let trust = try Fixture.httpBinTrust()
        #expect(policy.evaluate(trust, forDomain: nil) == false)
        #expect(rejection(policy, trust, domain: nil) == .noPinMatched)
    }

    @Test(arguments: modes)
    func doesNotAllowADNServerTrustWithHTTPBinOrgPinnedCertificate(mode: SSLPinningMode) throws {
        // At the ADN date the ADN chain is valid against the system store: the pin alone refuses it.
        let policy = policy(mode, pins: [try Fixture.httpBinLeaf()], at: Fixture.adnDate)
        let trust = try Fixture.adnTrust()
        #expect(policy.evaluate(trust, forDomain: nil) == false)
        // Certificate mode: the pinned HTTPBin leaf is the only anchor, so the chain ends at an
        // untrusted self-signed root.
        let expected: ServerTrustFailureReason = mode == .publicKey
            ? .noPinMatched
            : .untrustedChain(detail: "self-signed certificate in certificate chain (certificate 2)")
        #expect(rejection(policy, trust, domain: nil) == expected)
    }

    @Test(arguments: modes)
    func doesNotAllowHTTPBinOrgServerTrustWithHTTPBinOrgLeafCertificatePinnedAndInvalidDomainName(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.httpBinLeaf()])
        let trust = try Fixture.httpBinTrust()
        #expect(policy.evaluate(trust, forDomain: "invaliddomainname.com") == false)
        #expect(rejection(policy, trust, domain: "invaliddomainname.com") == .hostMismatch(host: "invaliddomainname.com"))
    }

    @Test(arguments: modes)
    func doesNotAllowADNServerTrustWithMultipleInvalidPinnedCertificates(mode: SSLPinningMode) throws {
        let policy = policy(mode, pins: [try Fixture.httpBinLeaf(), try Fixture.selfSignedWithCommonNameDomain()],
                            at: Fixture.adnDate)
        let trust = try Fixture.adnTrust()
        #expect(policy.evaluate(trust, forDomain: nil) == false)
        let expected: ServerTrustFailureReason = mode == .publicKey
            ? .noPinMatched
            : .untrustedChain(detail: "self-signed certificate in certificate chain (certificate 2)")
        #expect(rejection(policy, trust, domain: nil) == expected)
    }
}

@Suite("AFSecurityPolicyTests: domain name validation")
struct DomainNameValidationTests {
    @Test func policyWithoutDomainNameValidationAllowsServerTrustWithInvalidDomainName() throws {
        var policy = policy(.none)
        policy.validatesDomainName = false
        #expect(policy.evaluate(try Fixture.httpBinTrust(), forDomain: "invalid.org") == true)
    }

    @Test func policyWithDomainNameValidationAndSelfSignedCommonNameCertificateAllowsServerTrust() throws {
        let certificate = try Fixture.selfSignedWithCommonNameDomain()
        var policy = policy(.publicKey, pins: [certificate])
        policy.allowInvalidCertificates = true
        #expect(policy.evaluate(Fixture.trust(with: certificate), forDomain: "foobar.com") == true)
    }

    @Test func policyWithDomainNameValidationAndSelfSignedDNSCertificateAllowsServerTrust() throws {
        let certificate = try Fixture.selfSignedWithDNSNameDomain()
        var policy = policy(.publicKey, pins: [certificate])
        policy.allowInvalidCertificates = true
        #expect(policy.evaluate(Fixture.trust(with: certificate), forDomain: "foobar.com") == true)
    }

    @Test func policyWithDomainNameValidationDoesNotAllowServerTrustWithInvalidDomainName() throws {
        let trust = try Fixture.httpBinTrust()
        #expect(policy(.none).evaluate(trust, forDomain: "invalid.org") == false)
        #expect(rejection(policy(.none), trust, domain: "invalid.org") == .hostMismatch(host: "invalid.org"))
    }

    @Test func policyWithDomainNameValidationAndSelfSignedNoDomainCertificateDoesNotAllowServerTrust() throws {
        let certificate = try Fixture.selfSignedWithoutDomain()
        var policy = policy(.certificate, pins: [certificate])
        policy.allowInvalidCertificates = true
        let trust = Fixture.trust(with: certificate)
        #expect(policy.evaluate(trust, forDomain: "foobar.com") == false)
        #expect(rejection(policy, trust, domain: "foobar.com") == .hostMismatch(host: "foobar.com"))
    }
}

@Suite("AFSecurityPolicyTests: self-signed certificates")
struct SelfSignedCertificateTests {
    @Test func policyWithInvalidCertificatesAllowedAllowsSelfSignedServerTrust() throws {
        var policy = policy(.none)
        policy.allowInvalidCertificates = true
        #expect(policy.evaluate(Fixture.trust(with: try Fixture.selfSignedWithDNSNameDomain()), forDomain: nil) == true)
    }

    @Test func policyWithInvalidCertificatesAllowedAndValidPinnedCertificatesDoesAllowSelfSignedServerTrustForValidDomainName() throws {
        let certificate = try Fixture.selfSignedWithDNSNameDomain()
        var policy = policy(.publicKey, pins: [certificate])
        policy.allowInvalidCertificates = true
        #expect(policy.evaluate(Fixture.trust(with: certificate), forDomain: "foobar.com") == true)
    }

    @Test func policyWithInvalidCertificatesAllowedAndNoSSLPinningAndDomainNameValidationDisabledDoesAllowSelfSignedServerTrustForValidDomainName() throws {
        var policy = policy(.none)
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        #expect(policy.evaluate(Fixture.trust(with: try Fixture.selfSignedWithDNSNameDomain()), forDomain: "foobar.com") == true)
    }

    @Test func policyWithInvalidCertificatesDisabledDoesNotAllowSelfSignedServerTrust() throws {
        let trust = Fixture.trust(with: try Fixture.selfSignedWithDNSNameDomain())
        #expect(policy(.none).evaluate(trust, forDomain: nil) == false)
        #expect(rejection(policy(.none), trust, domain: nil)
                == .untrustedChain(detail: "self-signed certificate (certificate 0)"))
    }

    @Test func policyWithInvalidCertificatesAllowedAndNoPinnedCertificatesAndPublicKeyPinningModeDoesNotAllowSelfSignedServerTrustForValidDomainName() throws {
        var policy = policy(.publicKey, pins: [])
        policy.allowInvalidCertificates = true
        let trust = Fixture.trust(with: try Fixture.selfSignedWithDNSNameDomain())
        #expect(policy.evaluate(trust, forDomain: "foobar.com") == false)
        #expect(rejection(policy, trust, domain: "foobar.com") == .invalidPolicy(SecurityPolicy.selfSignedDomainValidationMessage))
    }

    @Test func policyWithInvalidCertificatesAllowedAndValidPinnedCertificatesAndNoPinningModeDoesNotAllowSelfSignedServerTrustForValidDomainName() throws {
        let certificate = try Fixture.selfSignedWithDNSNameDomain()
        var policy = policy(.none, pins: [certificate])
        policy.allowInvalidCertificates = true
        let trust = Fixture.trust(with: certificate)
        #expect(policy.evaluate(trust, forDomain: "foobar.com") == false)
        #expect(rejection(policy, trust, domain: "foobar.com") == .invalidPolicy(SecurityPolicy.selfSignedDomainValidationMessage))
    }

    @Test func policyWithInvalidCertificatesAllowedAndNoValidPinnedCertificatesAndNoPinningModeAndDomainValidationDoesNotAllowSelfSignedServerTrustForValidDomainName() throws {
        var policy = policy(.none, pins: [])
        policy.allowInvalidCertificates = true
        let trust = Fixture.trust(with: try Fixture.selfSignedWithDNSNameDomain())
        #expect(policy.evaluate(trust, forDomain: "foobar.com") == false)
        #expect(rejection(policy, trust, domain: "foobar.com") == .invalidPolicy(SecurityPolicy.selfSignedDomainValidationMessage))
    }
}

@Suite("AFSecurityPolicyTests: copying and coding")
struct PolicyCopyingTests {
    @Test func policyCanBeCopied() throws {
        var policy = SecurityPolicy(pinningMode: .certificate)
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        policy.pinnedCertificates = [try Fixture.httpBinLeaf()]

        var copied = policy
        #expect(copied == policy)
        #expect(copied.allowInvalidCertificates == true)
        #expect(copied.validatesDomainName == false)
        #expect(copied.pinningMode == .certificate)
        #expect(copied.pinnedCertificates == [try Fixture.httpBinLeaf()])
        // A copy is independent (AF: the copy is a distinct object).
        copied.pinnedCertificates = []
        copied.allowInvalidCertificates = false
        #expect(policy.pinnedCertificates.count == 1)
        #expect(policy.allowInvalidCertificates == true)
        #expect(policy.pinnedPublicKeys.count == 1)
        #expect(copied.pinnedPublicKeys.isEmpty)
    }

    @Test func policyCanBeEncodedAndDecoded() throws {
        var policy = SecurityPolicy(pinningMode: .certificate)
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        policy.pinnedCertificates = [try Fixture.httpBinLeaf()]

        let archive = try PropertyListEncoder().encode(policy)
        let decoded = try PropertyListDecoder().decode(SecurityPolicy.self, from: archive)
        #expect(decoded == policy)
        #expect(decoded.allowInvalidCertificates == true)
        #expect(decoded.validatesDomainName == false)
        #expect(decoded.pinningMode == .certificate)
        #expect(decoded.pinnedCertificates == [try Fixture.httpBinLeaf()])
        #expect(decoded.pinnedPublicKeys == policy.pinnedPublicKeys)
    }
}
