import AFProtocols
import AFSecurity
import Foundation
import Testing

@Suite("SPKI SHA-256 pins and per-host pin sets (beyond AF)")
struct PublicKeyPinTests {
    /// The pins listed in the fixtures README (computed there with the openssl command).
    @Test(arguments: [
        ("HTTPBin.org/HTTPBinOrgServerTrustChain/httpbin_0.cer", "sha256/flUN9mYPmbQZ0jCTHMo2iEhYuYQrJ3iKdeRV7x+8s50="),
        ("HTTPBin.org/HTTPBinOrgServerTrustChain/httpbin_1.cer", "sha256/JSMzqOOrtyOT1kmau6zKhgT676hGgczD5VMdRMyJZFA="),
        ("HTTPBin.org/HTTPBinOrgServerTrustChain/httpbin_2.cer", "sha256/++MBgDH5WGvL9Bcn5Be30cRcL0f5O+NyoXuWtQdX1aI="),
        ("HTTPBin.org/HTTPBinOrgServerTrustChain/httpbin_3.cer", "sha256/KwccWaCgrnaw6tsrrSO61FgLacNgG2MMLq8GE6+oP5I="),
        ("SelfSigned/AltName.cer", "sha256/3BLbj6o6BoCQWMjJfHV+3fLfhxQT7ThK984evY+acsE="),
        ("SelfSigned/foobar.com.cer", "sha256/2OgB1RapX12yFCadrXgFrgONc+m8u0KH022bkrsMCBw="),
        ("SelfSigned/NoDomains.cer", "sha256/mf/Sb5JQklp9n2TFJlrzNFahfxFO+DbQ4nWOFVRXUmk="),
        ("ADN.net/ADNNetServerTrustChain/adn_0.cer", "sha256/lV5TTziGsndCMSC7O+6F/b8VFz1yg57z5ahWNWChA+U="),
    ])
    func pinOfACertificateIsTheDigestOfItsSubjectPublicKeyInfo(file: String, expected: String) throws {
        let pin = try PublicKeyPin(certificate: try Fixture.data(file))
        #expect(pin.description == expected)
        #expect(try PublicKeyPin(expected) == pin)
        #expect(pin.sha256Digest.count == 32)
    }

    @Test func malformedPinsAreRefused() {
        #expect(throws: PublicKeyPin.ParseError.unsupportedAlgorithm("sha1")) {
            try PublicKeyPin("sha1/AAAAAAAAAAAAAAAAAAAAAAAAAAA=")
        }
        #expect(throws: PublicKeyPin.ParseError.malformedDigest("abc")) { try PublicKeyPin("sha256/abc") }
        #expect(throws: PublicKeyPin.ParseError.malformedDigest("AAAA")) { try PublicKeyPin("sha256/AAAA") }
        #expect(throws: PublicKeyPin.ParseError.malformedDigest("16 bytes")) { try PublicKeyPin(sha256Digest: Data(count: 16)) }
        #expect(throws: CertificateLoadingError.notACertificate) { try PublicKeyPin(certificate: Data("x".utf8)) }
    }

    @Test(arguments: [
        ("api.example.com", "api.example.com", true), ("api.example.com", "API.Example.COM.", true),
        ("api.example.com", "www.example.com", false),
        ("*.example.com", "api.example.com", true), ("*.example.com", "example.com", false),
        ("*.example.com", "a.b.example.com", false), ("*.example.com", "badexample.com", false),
        ("**.example.com", "example.com", true), ("**.example.com", "a.b.example.com", true),
        ("**.example.com", "badexample.com", false), ("example.com", "", false),
    ])
    func hostPatterns(pattern: String, host: String, matches: Bool) throws {
        let set = try PublicKeyPinSet(hostPattern: pattern, pins: ["sha256/flUN9mYPmbQZ0jCTHMo2iEhYuYQrJ3iKdeRV7x+8s50="])
        #expect(set.matches(host: host) == matches)
    }

    @Test func invalidPinSetsAreRefused() {
        let pin = "sha256/flUN9mYPmbQZ0jCTHMo2iEhYuYQrJ3iKdeRV7x+8s50="
        for pattern in ["", "*", "*.", "a.*.com", "*example.com", "example..com", ".example.com"] {
            #expect(throws: PublicKeyPinSet.DefinitionError.invalidHostPattern(pattern)) {
                try PublicKeyPinSet(hostPattern: pattern, pins: [pin])
            }
        }
        #expect(throws: PublicKeyPinSet.DefinitionError.noPins) { try PublicKeyPinSet(hostPattern: "a.com", pins: [String]()) }
        #expect(throws: PublicKeyPinSet.DefinitionError.invalidPin(.malformedDigest("x"))) {
            try PublicKeyPinSet(hostPattern: "a.com", pins: ["sha256/x"])
        }
    }

    private func policy(pinning pins: [String], pattern: String = "httpbin.org", expiring: Date? = nil) throws -> SecurityPolicy {
        var policy = AFSecurityTests.policy(.none)
        policy.publicKeyPinSets = [try PublicKeyPinSet(hostPattern: pattern, pins: pins, expirationDate: expiring)]
        return policy
    }

    static let intermediatePin = "sha256/JSMzqOOrtyOT1kmau6zKhgT676hGgczD5VMdRMyJZFA="
    static let unrelatedPin = "sha256/lV5TTziGsndCMSC7O+6F/b8VFz1yg57z5ahWNWChA+U="

    @Test func aMatchingPinPassesAndAnUnrelatedOneFails() throws {
        let trust = try Fixture.httpBinTrust()
        #expect(try policy(pinning: [Self.intermediatePin]).evaluate(trust, forDomain: "httpbin.org") == true)
        #expect(rejection(try policy(pinning: [Self.unrelatedPin]), trust, domain: "httpbin.org") == .noPinMatched)
    }

    @Test func aBackupPinIsEnough() throws {
        let trust = try Fixture.httpBinTrust()
        #expect(try policy(pinning: [Self.unrelatedPin, Self.intermediatePin]).evaluate(trust, forDomain: "httpbin.org") == true)
    }

    @Test func wildcardPatternAppliesToSubdomains() throws {
        let trust = try Fixture.httpBinTrust()
        let policy = try policy(pinning: [Self.unrelatedPin], pattern: "*.httpbin.org")
        #expect(rejection(policy, trust, domain: "www.httpbin.org") == .noPinMatched)
        // The bare domain is not under "*.httpbin.org": no pin set applies.
        #expect(policy.evaluate(trust, forDomain: "httpbin.org") == true)
    }

    @Test func anExpiredPinSetIsNotEnforced() throws {
        let trust = try Fixture.httpBinTrust()
        // The verification date is 2020-06-01.
        #expect(try policy(pinning: [Self.unrelatedPin], expiring: Fixture.utc(2020, 5, 31)).evaluate(trust, forDomain: "httpbin.org") == true)
        #expect(rejection(try policy(pinning: [Self.unrelatedPin], expiring: Fixture.utc(2020, 6, 2)), trust, domain: "httpbin.org") == .noPinMatched)
    }

    @Test func withoutADomainTheTrustsHostSelectsThePinSet() throws {
        let trust = try Fixture.httpBinTrust()
        #expect(rejection(try policy(pinning: [Self.unrelatedPin]), trust, domain: nil) == .noPinMatched)
    }

    @Test func pinSetsDoNotRescueAnInvalidChain() throws {
        let trust = try Fixture.httpBinTrust()
        var policy = try policy(pinning: [Self.intermediatePin])
        policy.verificationDate = Fixture.utc(2022, 1, 1)
        #expect(rejection(policy, trust, domain: "httpbin.org") == .expired(index: 0))
    }

    @Test func pinSetsAreEncodedWithThePolicy() throws {
        let policy = try policy(pinning: [Self.unrelatedPin, Self.intermediatePin], pattern: "**.httpbin.org",
                                expiring: Fixture.utc(2030, 1, 1))
        let decoded = try JSONDecoder().decode(SecurityPolicy.self, from: JSONEncoder().encode(policy))
        #expect(decoded.publicKeyPinSets == policy.publicKeyPinSets)
        #expect(decoded.publicKeyPinSets.first?.pins.map(\.description) == [Self.unrelatedPin, Self.intermediatePin])
    }
}
