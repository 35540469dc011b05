import AFNetworking
import Foundation
import FuzzSupport

/// Loads arbitrary bytes as PEM or DER certificates, then evaluates what loaded as a server chain
/// under several policies (pinned to itself, public-key pinned, default, SPKI pin set): must never
/// crash, whatever the bytes.
@_cdecl("CertificateLoading_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data else { return 0 }
        let bytes = Data(bytes: data, count: size)
        _ = try? SecurityPolicy.certificate(fromDER: bytes)
        _ = try? SecurityPolicy.certificates(fromPEM: bytes)
        _ = try? PublicKeyPin(certificate: bytes)
        // The input as a chain of raw DER pieces too (split at zero bytes, at most 9 pieces), so that
        // malformed members reach the evaluation.
        let pieces = bytes.split(separator: 0, maxSplits: 8, omittingEmptySubsequences: false).map { Data($0) }
        let loaded = (try? SecurityPolicy.certificates(from: bytes)) ?? []
        for chain in [loaded, pieces] where !chain.isEmpty || bytes.isEmpty {
            let trust = ServerTrust(certificateChain: chain, host: "fuzz.example")
            var pinned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: Set(chain))
            pinned.allowInvalidCertificates = true
            pinned.verificationDate = Date(timeIntervalSince1970: 1_590_969_600)
            var keys = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: Set(chain.prefix(1)))
            keys.publicKeyPinSets = [try! PublicKeyPinSet(hostPattern: "*.example", pins: ["sha256/flUN9mYPmbQZ0jCTHMo2iEhYuYQrJ3iKdeRV7x+8s50="])]
            for policy in [pinned, keys, SecurityPolicy.default] {
                _ = policy.evaluate(trust, forDomain: "fuzz.example")
                _ = try? policy.validate(trust, forDomain: nil)
            }
            _ = try? TrustStore(certificates: chain)
        }
        return 0
    }
}
