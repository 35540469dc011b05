import CCurlShim
import Foundation
import AFProtocols

/// The session's trust policy as the TLS verify callback sees it, plus the last rejection per host
/// (for the -1202 error's peer-trust key). Lives as long as its engine, which outlives every
/// connection (they close when the multi handle is cleaned up).
final class ServerTrustContext: Sendable {
    private let policy = Protected<(any ServerTrustEvaluating)?>(nil)
    private let rejections = Protected<[String: ServerTrust]>([:])

    /// The policy deciding new handshakes (nil: libcurl verifies against the system CA bundle).
    var currentPolicy: (any ServerTrustEvaluating)? {
        get { policy.withLock { $0 } }
        set { policy.withLock { $0 = newValue } }
    }

    /// Runs the policy on a chain; remembers a rejection.
    func decide(chain: [Data], host: String) -> Bool {
        let trust = ServerTrust(certificateChain: chain, host: host)
        guard let evaluator = currentPolicy else { return false }
        if evaluator.evaluate(trust, forDomain: host) { return true }
        rejections.withLock { $0[host] = trust }
        return false
    }

    /// The trust rejected last for `host`, removed.
    func takeRejection(for host: String) -> ServerTrust? {
        rejections.withLock { $0.removeValue(forKey: host) }
    }
}

/// The C verify hook's decider: rebuilds the chain and asks the context's policy.
let serverTrustDecider: afc_trust_decider = { userdata, ders, lengths, count, host in
    guard let userdata, let ders, let lengths else { return 0 }
    let context = Unmanaged<ServerTrustContext>.fromOpaque(userdata).takeUnretainedValue()
    var chain: [Data] = []
    chain.reserveCapacity(count)
    for index in 0..<count {
        guard let der = ders[index] else { return 0 }
        chain.append(Data(bytes: der, count: lengths[index]))
    }
    let hostName = host.map { String(cString: $0) } ?? ""
    return context.decide(chain: chain, host: hostName) ? 1 : 0
}
