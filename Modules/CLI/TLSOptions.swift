import AFNetworking
import ArgumentParser
import Foundation

/// How `af` decides whom to trust over HTTPS.
struct TLSOptions: ParsableArguments {
    /// The pinning modes `--pin-mode` takes.
    enum PinMode: String, ExpressibleByArgument, CaseIterable {
        case certificate
        case publicKey = "public-key"
    }

    @Option(name: .customLong("pin-cert"), help: "Pin this certificate (DER or PEM file); repeatable.")
    var pinnedCertificateFiles: [String] = []
    @Option(name: .customLong("pin-mode"), help: "What a --pin-cert pins: certificate or public-key (default certificate).")
    var pinMode: PinMode = .certificate
    @Option(name: .customLong("pin-sha256"), help: "Pin a public key by the base64 SHA-256 of its SubjectPublicKeyInfo; repeatable.")
    var publicKeyHashes: [String] = []
    @Option(name: .long, help: "Trust the CA certificates in this file instead of the system store.")
    var cacert: String?
    @Flag(name: [.customShort("k"), .long], help: "Accept any certificate (no chain or host validation).")
    var insecure = false

    /// The policy these options describe, or `nil` to let libcurl verify against the system store.
    func securityPolicy(for host: String?) throws -> SecurityPolicy? {
        guard !pinnedCertificateFiles.isEmpty || !publicKeyHashes.isEmpty || cacert != nil || insecure else { return nil }
        var pins = Set<Data>()
        for file in pinnedCertificateFiles {
            pins.formUnion(try SecurityPolicy.certificates(contentsOf: URL(fileURLWithPath: file)))
        }
        let mode: SSLPinningMode = pins.isEmpty ? .none : (pinMode == .certificate ? .certificate : .publicKey)
        var policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: pins)
        if let cacert { policy.trustStore = try TrustStore(contentsOf: URL(fileURLWithPath: cacert)) }
        if !publicKeyHashes.isEmpty {
            let pins = publicKeyHashes.map { $0.hasPrefix("sha256/") ? $0 : "sha256/\($0)" }
            policy.publicKeyPinSets = [try PublicKeyPinSet(hostPattern: host ?? "*", pins: pins)]
        }
        if insecure {
            policy.allowInvalidCertificates = true
            policy.validatesDomainName = false
        }
        return policy
    }
}
