import AFProtocols
import Foundation

/// The trust an https response was fetched under (a `CacheTrustRecord`, which the engine makes), kept
/// with it in the cache, so that a session never takes from the cache what its own handshake would
/// refuse (two sessions share `URLCache.shared` by default: one that pins a certificate the server
/// lacks, or asks TLS 1.3 of a server that speaks 1.2, was answered with what another session stored).
///
/// An entry answers a session only when the session's trust is the same or looser:
/// - its policy accepts the chain the server presented when the entry was fetched, for the entry's host
///   (a session without a policy, which lets libcurl verify against the system CAs, takes only entries
///   fetched that way too: a policy may have accepted what the system CAs would not);
/// - the entry was fetched with a TLS range inside the session's (its minimum at least the session's,
///   its maximum at most the session's when the session has one);
/// - it was fetched with the session's client certificate, or both with none.
/// An https entry with no recorded trust (a `URLCache` filled by hand) counts as fetched with no policy,
/// TLS 1.2 or later and no client certificate: the defaults.
extension CacheTrustRecord {
    /// What an entry without a record counts as.
    static let unrecorded = CacheTrustRecord(policyEvaluatedChain: nil, tlsMinimum: .tlsv12, tlsMaximum: nil,
                                             clientCertificate: nil)

    /// Where the record travels in a `CachedURLResponse`'s `userInfo`.
    static let userInfoKey = "AFNetworking.cache.trust"

    /// The record as one binary property list, the form it takes in `userInfo`: Foundation's `URLCache`
    /// on Linux reads `userInfo` back with a keyed unarchiver that allows no array (an `NSArray` in it
    /// is a fatal error on the next lookup), so the chain travels inside this `Data`.
    var archived: Data {
        var list: [String: Any] = ["tlsMinimum": tlsMinimum.rawValue]
        if let policyEvaluatedChain { list["chain"] = policyEvaluatedChain }
        if let tlsMaximum { list["tlsMaximum"] = tlsMaximum.rawValue }
        if let clientCertificate { list["clientCertificate"] = clientCertificate }
        return (try? PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0)) ?? Data()
    }

    /// Reads an ``archived`` record; nil for anything else (a tampered cache file), which answers no one.
    init?(archived: Any) {
        guard let data = archived as? Data,
              let list = try? PropertyListSerialization.propertyList(from: data, format: nil) else { return nil }
        self.init(propertyList: list)
    }

    private init?(propertyList: Any) {
        guard let list = propertyList as? [String: Any], let minimum = (list["tlsMinimum"] as? Int).flatMap(TLSProtocolVersion.init(rawValue:))
        else { return nil }
        var maximum: TLSProtocolVersion?
        if let raw = list["tlsMaximum"] {
            guard let value = (raw as? Int).flatMap(TLSProtocolVersion.init(rawValue:)) else { return nil }
            maximum = value
        }
        if let chain = list["chain"], !(chain is [Data]) { return nil }
        if let certificate = list["clientCertificate"], !(certificate is Data) { return nil }
        self.init(policyEvaluatedChain: list["chain"] as? [Data], tlsMinimum: minimum, tlsMaximum: maximum,
                  clientCertificate: list["clientCertificate"] as? Data)
    }

    /// Whether a session with `requirement` may take the entry for `host`.
    func satisfies(_ requirement: CacheTrustRequirement, host: String) -> Bool {
        guard tlsMinimum >= requirement.tlsMinimum else { return false }
        if let required = requirement.tlsMaximum {
            guard let tlsMaximum, tlsMaximum <= required else { return false }
        }
        guard clientCertificate == requirement.clientCertificate else { return false }
        guard let policy = requirement.policy else { return policyEvaluatedChain == nil }
        guard let chain = policyEvaluatedChain, !chain.isEmpty else { return false }
        return policy.evaluate(ServerTrust(certificateChain: chain, host: host), forDomain: host)
    }
}
