import CCurlShim
import Foundation

/// The certificate chain a server presented, read from a transfer's OpenSSL connection: what an https
/// response the cache stores records of the handshake it was fetched under (`CacheTrustRecord`).
enum PeerChain {
    /// The chain (DER, leaf first) the server of `handle`'s connection presented, read while its
    /// transfer runs; nil when there is no OpenSSL connection to read.
    static func read(from handle: UnsafeMutableRawPointer) -> [Data]? {
        final class Collected { var chain: [Data] = [] }
        let collected = Collected()
        let count = withExtendedLifetime(collected) {
            afc_easy_peer_chain(handle, { context, _, der, length in
                guard let context, let der else { return }
                Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue().chain.append(Data(bytes: der, count: length))
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return count > 0 && collected.chain.count == Int(count) ? collected.chain : nil
    }
}
