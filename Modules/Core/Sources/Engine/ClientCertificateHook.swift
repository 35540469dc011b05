import CCurlShim
import Foundation

/// The C certificate callback's decider: finds the transfer that opened the connection (its handle's
/// CURLOPT_PRIVATE), asks the session through ``Transfer/answerClientCertificateChallenge(_:)`` and hands
/// the chosen identity to OpenSSL. Runs on the engine thread, inside the handshake.
let clientIdentityDecider: afc_identity_decider = { handle, host, port, issuers, issuerLengths, issuerCount, sink in
    Int32(ClientCertificateHook.decide(handle: handle, host: host, port: port, issuers: issuers,
                                       issuerLengths: issuerLengths, issuerCount: issuerCount, sink: sink).rawValue)
}

/// The Swift side of the C client-certificate hook.
enum ClientCertificateHook {
    /// The answer for one certificate request (see ``clientIdentityDecider``).
    static func decide(handle: UnsafeMutableRawPointer?, host: UnsafePointer<CChar>?, port: Int,
                       issuers: UnsafePointer<UnsafePointer<UInt8>?>?, issuerLengths: UnsafePointer<Int>?,
                       issuerCount: Int, sink: OpaquePointer?) -> afc_identity_answer {
        var owner: UnsafeMutableRawPointer?
        guard let handle, let sink else { return AFC_IDENTITY_ANSWER_CANCEL }
        afc_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &owner)
        guard let owner else { return AFC_IDENTITY_ANSWER_CANCEL }
        let transfer = Unmanaged<Transfer>.fromOpaque(owner).takeUnretainedValue()
        var acceptableIssuers: [Data] = []
        if let issuers, let issuerLengths {
            acceptableIssuers.reserveCapacity(issuerCount)
            for index in 0..<issuerCount {
                guard let issuer = issuers[index] else { continue }
                acceptableIssuers.append(Data(bytes: issuer, count: issuerLengths[index]))
            }
        }
        let challenge = ClientCertificateChallenge(host: host.map { String(cString: $0) } ?? "", port: port,
                                                   acceptableIssuers: acceptableIssuers)
        switch transfer.answerClientCertificateChallenge(challenge) {
        case .proceedWithout:
            return AFC_IDENTITY_ANSWER_WITHOUT
        case .cancel:
            return AFC_IDENTITY_ANSWER_CANCEL
        case .present(let identity):
            let presented = identity.certificateChainPEM.withUnsafeBytes { chain in
                identity.privateKeyPEM.withUnsafeBytes { key in
                    afc_identity_sink_present(sink, chain.baseAddress?.assumingMemoryBound(to: UInt8.self), chain.count,
                                              key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
                }
            }
            return presented == 1 ? AFC_IDENTITY_ANSWER_PRESENTED : AFC_IDENTITY_ANSWER_CANCEL
        }
    }
}

extension Transfer {
    /// Asks the session which identity answers `challenge`; a cancel also cancels the task, so the failed
    /// handshake completes it with -999.
    func answerClientCertificateChallenge(_ challenge: ClientCertificateChallenge) -> ClientCertificateAnswer {
        confinement.assertOnOwner("a client-certificate challenge")
        let answer = events.transfer(task, didReceive: challenge)
        if case .cancel = answer { task.cancel() }
        return answer
    }
}
