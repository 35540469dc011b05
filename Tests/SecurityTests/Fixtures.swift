import AFProtocols
import AFSecurity
import Foundation
import Testing

/// AFNetworking's own test certificates (Fixtures/, see /work/shared/fixtures/afnetworking/README.md)
/// and the instants inside their validity windows the evaluations are pinned to.
enum Fixture {
    /// Inside the HTTPBin chain's validity (leaf 2020-01-18 .. 2021-02-18) and the self-signed ones'.
    static let httpBinDate = utc(2020, 6, 1)
    /// Inside the ADN chain's validity (leaf 2014-04-14 .. 2015-08-13).
    static let adnDate = utc(2015, 1, 1)

    static var directory: URL {
        get throws { try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures") }
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(relativePath))
    }

    /// Every certificate of a folder, in file-name order (AF builds its test trusts from the folder).
    static func chain(_ folder: String) throws -> [Data] {
        let url = try directory.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            .map { try Data(contentsOf: url.appendingPathComponent($0)) }
    }

    static func httpBinLeaf() throws -> Data { try data("HTTPBin.org/httpbinorg_02182021.cer") }
    static func amazonIntermediate() throws -> Data { try data("HTTPBin.org/Amazon.cer") }
    static func amazonRoot() throws -> Data { try data("HTTPBin.org/Amazon Root CA 1.cer") }
    static func starfieldServicesRoot() throws -> Data {
        try data("HTTPBin.org/Starfield Services Root Certificate Authority - G2.cer")
    }
    static func selfSignedWithoutDomain() throws -> Data { try data("SelfSigned/NoDomains.cer") }
    static func selfSignedWithCommonNameDomain() throws -> Data { try data("SelfSigned/foobar.com.cer") }
    static func selfSignedWithDNSNameDomain() throws -> Data { try data("SelfSigned/AltName.cer") }

    /// httpbin_0 .. httpbin_3: leaf, Amazon Server CA 1B, Amazon Root CA 1 (cross-signed), Starfield G2.
    static func httpBinTrust() throws -> ServerTrust {
        ServerTrust(certificateChain: try chain("HTTPBin.org/HTTPBinOrgServerTrustChain"), host: "httpbin.org")
    }

    /// adn_0 .. adn_2: *.app.net, DigiCert High Assurance CA-3, DigiCert High Assurance EV Root CA.
    static func adnTrust() throws -> ServerTrust {
        ServerTrust(certificateChain: try chain("ADN.net/ADNNetServerTrustChain"), host: "alpha-api.app.net")
    }

    static func trust(with certificate: Data, host: String = "foobar.com") -> ServerTrust {
        ServerTrust(certificateChain: [certificate], host: host)
    }

    static func utc(_ year: Int, _ month: Int, _ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }
}

/// A policy with the verification time pinned.
func policy(_ mode: SSLPinningMode, pins: [Data] = [], at date: Date = Fixture.httpBinDate) -> SecurityPolicy {
    var policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: Set(pins))
    policy.verificationDate = date
    return policy
}

/// The reason `validate` gives, or nil when it accepts.
func rejection(_ policy: SecurityPolicy, _ trust: ServerTrust, domain: String?) -> ServerTrustFailureReason? {
    do {
        try policy.validate(trust, forDomain: domain)
        return nil
    } catch let error as ServerTrustEvaluationError {
        return error.reason
    } catch {
        Issue.record("unexpected error type \(error)")
        return nil
    }
}
