import AFNetworking
import ArgumentParser
import Foundation

/// How `af` decides whom to trust over HTTPS, and which client certificate it presents.
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
    @Option(name: .long, help: "Present this client certificate (PEM, with its chain and possibly its key; DER; or PKCS#12 as .p12/.pfx).")
    var cert: String?
    @Option(name: .long, help: "The client certificate's private key (PEM or DER), when --cert does not hold it.")
    var key: String?
    @Option(name: .long, help: "The passphrase of --cert's PKCS#12 bundle or of an encrypted --key.")
    var pass: String?

    /// The client identity `--cert`, `--key` and `--pass` describe, or nil without `--cert`.
    func clientIdentity() throws -> ClientIdentity? {
        guard let cert else {
            if key != nil { throw ValidationError("--key needs --cert") }
            return nil
        }
        let certificate = try Data(contentsOf: URL(fileURLWithPath: cert))
        let lowered = cert.lowercased()
        if lowered.hasSuffix(".p12") || lowered.hasSuffix(".pfx") {
            return try ClientIdentity(pkcs12: certificate, passphrase: pass ?? "")
        }
        let privateKey = try key.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        if Self.isPEM(certificate) {
            return try ClientIdentity(pemCertificateChain: certificate, pemPrivateKey: privateKey, passphrase: pass)
        }
        guard let privateKey else { throw ValidationError("a DER --cert needs --key") }
        if Self.isPEM(privateKey) {
            // A DER certificate with a PEM key: the certificate as PEM, so one reader takes both.
            let pem = "-----BEGIN CERTIFICATE-----\n\(certificate.base64EncodedString(options: .lineLength64Characters))\n-----END CERTIFICATE-----\n"
            return try ClientIdentity(pemCertificateChain: Data(pem.utf8), pemPrivateKey: privateKey, passphrase: pass)
        }
        return try ClientIdentity(derCertificate: certificate, derPrivateKey: privateKey, passphrase: pass)
    }

    private static func isPEM(_ data: Data) -> Bool { data.range(of: Data("-----BEGIN ".utf8)) != nil }

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
