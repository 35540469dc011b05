import CCurl
import CCurlShim

/// The engine's transfers spread over several multi handles (engine thread), each with a connection pool
/// of its own.
///
/// libcurl looks for a connection to reuse by walking its pool's connections to the transfer's host, once
/// for every transfer it starts. From libcurl 8 that walk costs enough per connection that, with thousands
/// of connections to one host in one pool, it took about 40% of the engine thread (8.14.1, 4,096 in
/// flight: 2,741 req/s at 4,096 connections against 12,858 at 256; Docs/Benchmarks.md). So a multi handle
/// takes at most ``transfersPerMulti`` transfers at once: the first one with room gets the next transfer
/// (its kept-alive connections are the likeliest to be reused), and a new one is made when all are full.
/// One epoll set and one loop drive them all (CCurlShim's SocketLoop.c); up to 128 transfers in flight
/// only the first exists.
extension SessionEngine {
    /// The most transfers one multi handle holds at once (and so, over HTTP/1.1, about the most
    /// connections its pool walks for each transfer it starts). Profile mode on libcurl 8.14.1, engine
    /// thread CPU a request at 1,024 / 4,096 in flight: 114 / 124 µs at 64, 111 / 124 at 128, 125 / 132
    /// at 256, 164 / 833 with one multi handle.
    static let transfersPerMulti = 128

    /// Makes a multi handle with the engine's settings and has the loop drive it; its index, or -1 when
    /// libcurl or the loop ran out of memory.
    func addMulti() -> Int {
        guard let multi = curl_multi_init() else { return -1 }
        let index = Int(afc_socket_loop_add_multi(socketLoop, multi))
        guard index == multis.count else {
            curl_multi_cleanup(multi)
            return -1
        }
        let limit = settings.maximumConnectionsPerHost
        if limit > 0 { afc_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limit) }
        afc_multi_setopt_long(multi, CURLMOPT_PIPELINING, afc_pipe_multiplex)
        afc_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, HostAdmission.streamsPerConnection)
        // Connections kept open when idle, per multi handle: four per allowed connection as before, but
        // no more than twice what the handle holds in flight.
        afc_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(32, min(limit * 4, 2 * Self.transfersPerMulti)))
        multis.append(multi)
        multiLoads.append(0)
        multiHandleCount.add(1, ordering: .relaxed)
        return index
    }

    /// Hands `transfer`'s handle to the first multi handle with room (a new one when all are full, or the
    /// least loaded when no more can be made).
    func addToMulti(_ transfer: Transfer) {
        var index = multiLoads.firstIndex { $0 < Self.transfersPerMulti } ?? addMulti()
        if index < 0 { index = multiLoads.indices.min { multiLoads[$0] < multiLoads[$1] } ?? 0 }
        multiLoads[index] += 1
        transfer.multiIndex = index
        curl_multi_add_handle(multis[index], transfer.handle)
    }

    /// Takes `transfer`'s handle out of its multi handle (nothing when it is in none).
    func detachFromMulti(_ transfer: Transfer) {
        let index = transfer.multiIndex
        guard index >= 0 else { return }
        curl_multi_remove_handle(multis[index], transfer.handle)
        multiLoads[index] -= 1
        transfer.multiIndex = -1
    }
}
