import AFProtocols
import Foundation

/// Decides whether to trust a TLS server's certificate chain: AFNetworking's AFSecurityPolicy on
/// OpenSSL, with its pinning modes and evaluation algorithm, plus SPKI SHA-256 pin sets per host.
///
/// A value type: copying a policy (AF's `NSCopying`) copies its configuration; `Codable` stands
/// for AF's `NSSecureCoding` (the trust store and verification date are not encoded).
///
/// Threading: `Sendable`; evaluation only reads the policy and may run concurrently on any thread
/// (Core calls it on its engine thread inside the TLS handshake). It never touches the network.
public struct SecurityPolicy: ServerTrustEvaluating, Hashable, Codable {
    /// The message AFNetworking logs (and this policy reports) when a domain name is to be validated
    /// on an invalid (self-signed) certificate without pins to anchor it.
    public static let selfSignedDomainValidationMessage =
        "In order to validate a domain name for self signed certificates, you MUST use pinning."

    /// Presented chains longer than this are rejected before parsing (real servers send 2 to 5).
    public static let maximumCertificateChainLength = 32

    /// How the server's chain is compared with ``pinnedCertificates``. Default `.none`.
    public var pinningMode: SSLPinningMode

    /// DER certificates to pin against (certificate mode: the only anchors and the certificates one
    /// of which the chain must contain; public-key mode: their keys). Setting it re-derives the
    /// public keys once; certificates that do not parse are ignored for keys and anchors.
    public var pinnedCertificates: Set<Data> {
        didSet { pinnedMaterial = PinnedCertificateMaterial(pinnedCertificates) }
    }

    /// Trust certificates that fail chain validation (expired, self-signed, unknown CA). Default
    /// false. With pinning, the pins are still enforced.
    public var allowInvalidCertificates: Bool

    /// Check that the leaf certificate names the domain being evaluated: subjectAltName DNS names
    /// and IP addresses, the subject Common Name only when there is no subjectAltName. Default true.
    public var validatesDomainName: Bool

    /// The anchors of "the system trust store" in steps 3 and 4 of the evaluation. Default
    /// ``TrustStore/system``, the distribution's CA bundle; tests and private PKIs pass their own.
    public var trustStore: TrustStore

    /// The instant validity periods are checked at, and pin-set expiry compared with; nil (the
    /// default) means the time of each evaluation. Set it to evaluate recorded chains.
    public var verificationDate: Date?

    /// SPKI SHA-256 pin sets, enforced after AF's algorithm accepted the chain, for the hosts they
    /// match (the evaluated domain, or the trust's host when the domain is nil). Default empty.
    public var publicKeyPinSets: [PublicKeyPinSet]

    private var pinnedMaterial: PinnedCertificateMaterial

    /// AF's `defaultPolicy`: no pinning, domain names validated, invalid certificates refused,
    /// the system trust store.
    public static var `default`: SecurityPolicy { SecurityPolicy(pinningMode: .none) }

    /// A policy with a pinning mode and pinned DER certificates (AF's
    /// `policyWithPinningMode:withPinnedCertificates:`). Unlike AF there is no implicit search of the
    /// app bundle for certificates: load them with `certificates(in:recursive:)`.
    public init(pinningMode: SSLPinningMode, pinnedCertificates: Set<Data> = []) {
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.allowInvalidCertificates = false
        self.validatesDomainName = true
        self.trustStore = .system
        self.verificationDate = nil
        self.publicKeyPinSets = []
        self.pinnedMaterial = PinnedCertificateMaterial(pinnedCertificates)
    }

    /// The DER SubjectPublicKeyInfo of each parsable pinned certificate (AF's `pinnedPublicKeys`).
    public var pinnedPublicKeys: Set<Data> { pinnedMaterial.publicKeys }

    // MARK: Evaluation

    /// AF's `evaluateServerTrust:forDomain:`: whether to trust `serverTrust` for `domain`
    /// (nil: no host check). See ``validate(_:forDomain:)`` for the steps and the reason of a refusal.
    public func evaluate(_ serverTrust: ServerTrust, forDomain domain: String?) -> Bool {
        do {
            try validate(serverTrust, forDomain: domain)
            return true
        } catch {
            return false
        }
    }

    /// Evaluates `serverTrust` for `domain` (nil: no host check), throwing the reason on refusal.
    ///
    /// AF's algorithm:
    /// 1. A domain to validate with invalid certificates allowed but no pinning (mode `.none` or no
    ///    pins) cannot work: logs ``selfSignedDomainValidationMessage``, refuses (`.invalidPolicy`).
    /// 2. The chain is checked as TLS server chain naming `domain` when ``validatesDomainName``
    ///    and a domain is given, else as a basic X.509 chain.
    /// 3. Mode `.none`: accepted when ``allowInvalidCertificates`` or the chain is valid against
    ///    ``trustStore``.
    /// 4. Other modes: an invalid chain is refused unless ``allowInvalidCertificates``.
    /// 5. `.certificate`: the pinned certificates become the only anchors; the chain must validate
    ///    against them (host included) and the built chain must contain a pinned certificate.
    /// 6. `.publicKey`: a certificate of the chain must have a pinned public key.
    /// Then, beyond AF, the matching unexpired ``publicKeyPinSets`` must each be satisfied.
    ///
    /// - Throws: `ServerTrustEvaluationError` whose reason is `.emptyChain`,
    ///   `.malformedCertificate`, `.untrustedChain`, `.expired`, `.hostMismatch`, `.noPinMatched`
    ///   or `.invalidPolicy`.
    public func validate(_ serverTrust: ServerTrust, forDomain domain: String?) throws {
        do {
            try check(serverTrust, forDomain: domain)
        } catch {
            throw ServerTrustEvaluationError(reason: error.reason, host: domain ?? serverTrust.host)
        }
    }

    private func check(_ serverTrust: ServerTrust, forDomain domain: String?) throws(TrustRejection) {
        if domain != nil, allowInvalidCertificates, validatesDomainName,
           pinningMode == .none || pinnedCertificates.isEmpty {
            Self.log(Self.selfSignedDomainValidationMessage)
            throw TrustRejection(.invalidPolicy(Self.selfSignedDomainValidationMessage))
        }
        let chain = try Self.parse(serverTrust.certificateChain)
        let date = verificationDate ?? Date()
        func verification(against anchors: TrustStore) -> ChainVerification {
            ChainVerification(chain: chain, anchors: anchors, date: date,
                              host: validatesDomainName ? domain : nil,
                              requiresServerPurpose: validatesDomainName)
        }

        // Certificates whose keys pins may match: the chain as sent plus what validation added.
        var candidates = chain
        if !allowInvalidCertificates {
            candidates += try verification(against: trustStore).run().get()
        }
        switch pinningMode {
        case .none:
            break
        case .certificate:
            guard let anchors = pinnedMaterial.anchors else { throw TrustRejection(.noPinMatched) }
            let built = try verification(against: anchors).run().get()
            guard built.contains(where: { pinnedCertificates.contains($0.der) }) else { throw TrustRejection(.noPinMatched) }
            candidates += built
        case .publicKey:
            let keys = pinnedMaterial.publicKeys
            guard candidates.contains(where: { $0.subjectPublicKeyInfo.map(keys.contains) ?? false }) else {
                throw TrustRejection(.noPinMatched)
            }
        }
        try enforcePinSets(host: domain ?? serverTrust.host, candidates: candidates, at: date)
    }

    private func enforcePinSets(host: String, candidates: [X509Certificate], at date: Date) throws(TrustRejection) {
        let applicable = publicKeyPinSets.filter { $0.isEnforced(at: date) && $0.matches(host: host) }
        guard !applicable.isEmpty else { return }
        let presented = Set(candidates.compactMap(\.subjectPublicKeyInfo).map(PublicKeyPin.init(subjectPublicKeyInfo:)))
        for pinSet in applicable where presented.isDisjoint(with: pinSet.pins) {
            throw TrustRejection(.noPinMatched)
        }
    }

    private static func parse(_ chain: [Data]) throws(TrustRejection) -> [X509Certificate] {
        guard !chain.isEmpty else { throw TrustRejection(.emptyChain) }
        guard chain.count <= maximumCertificateChainLength else {
            throw TrustRejection(.untrustedChain(detail: "the server sent \(chain.count) certificates, more than the \(maximumCertificateChainLength) accepted"))
        }
        var parsed: [X509Certificate] = []
        for (index, der) in chain.enumerated() {
            guard let certificate = try? ParsedCertificateCache.shared.certificate(der: der) else { throw TrustRejection(.malformedCertificate(index: index)) }
            parsed.append(certificate)
        }
        return parsed
    }

    private static func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    // MARK: Equality and coding

    public static func == (lhs: SecurityPolicy, rhs: SecurityPolicy) -> Bool {
        lhs.pinningMode == rhs.pinningMode && lhs.pinnedCertificates == rhs.pinnedCertificates
            && lhs.allowInvalidCertificates == rhs.allowInvalidCertificates
            && lhs.validatesDomainName == rhs.validatesDomainName && lhs.trustStore === rhs.trustStore
            && lhs.verificationDate == rhs.verificationDate && lhs.publicKeyPinSets == rhs.publicKeyPinSets
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pinningMode)
        hasher.combine(pinnedCertificates)
        hasher.combine(allowInvalidCertificates)
        hasher.combine(validatesDomainName)
        hasher.combine(ObjectIdentifier(trustStore))
        hasher.combine(verificationDate)
        hasher.combine(publicKeyPinSets)
    }

    private enum CodingKeys: String, CodingKey {
        case pinningMode, pinnedCertificates, allowInvalidCertificates, validatesDomainName, publicKeyPinSets
    }

    /// Decodes a policy; it uses ``TrustStore/system`` and the current time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let certificates = try container.decodeIfPresent([Data].self, forKey: .pinnedCertificates) ?? []
        self.init(pinningMode: try container.decode(SSLPinningMode.self, forKey: .pinningMode),
                  pinnedCertificates: Set(certificates))
        allowInvalidCertificates = try container.decode(Bool.self, forKey: .allowInvalidCertificates)
        validatesDomainName = try container.decode(Bool.self, forKey: .validatesDomainName)
        publicKeyPinSets = try container.decodeIfPresent([PublicKeyPinSet].self, forKey: .publicKeyPinSets) ?? []
    }

    /// Encodes the configuration (not the trust store nor the verification date). Certificates are
    /// written in a stable order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pinningMode, forKey: .pinningMode)
        try container.encode(pinnedCertificates.sorted { $0.lexicographicallyPrecedes($1) }, forKey: .pinnedCertificates)
        try container.encode(allowInvalidCertificates, forKey: .allowInvalidCertificates)
        try container.encode(validatesDomainName, forKey: .validatesDomainName)
        try container.encode(publicKeyPinSets, forKey: .publicKeyPinSets)
    }
}
