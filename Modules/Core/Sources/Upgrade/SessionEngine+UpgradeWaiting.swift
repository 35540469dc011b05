import CCurl
import CCurlShim
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the loop waits on upgraded connections (engine thread): their epoll descriptor in the loop's own
/// epoll set beside libcurl's sockets, or, with no transfer at all, epoll alone.
extension SessionEngine {
    /// Has the loop's wait watch the upgraded connections' epoll descriptor while any socket is watched
    /// (one descriptor however many connections are open), and not otherwise.
    func watchUpgradeSocketsInLoop() {
        let wanted = !upgradesBySocket.isEmpty && upgradeWatch.descriptor >= 0 ? upgradeWatch.descriptor : -1
        guard wanted != watchedUpgradeDescriptor else { return }
        if afc_socket_loop_watch_extra(socketLoop, wanted) == 0 {
            watchedUpgradeDescriptor = wanted
        } else {
            // Refused (out of memory): the connections are still looked at after every wait, below.
            watchedUpgradeDescriptor = -1
        }
    }

    /// Services the connections whose sockets epoll found ready, when the loop's wait found their epoll
    /// descriptor readable (or did not watch it).
    func serviceReadyUpgrades(found: Int32) {
        guard !upgradesBySocket.isEmpty else { return }
        if watchedUpgradeDescriptor >= 0, found >= 0, found & Int32(AFC_SOCKET_LOOP_EXTRA_READY) == 0 { return }
        upgradeWatch.collectReady(into: &readyUpgrades)
        serviceCollectedUpgrades()
    }

    /// Services the connections ``readyUpgrades`` lists.
    private func serviceCollectedUpgrades() {
        for ready in readyUpgrades {
            // A connection closed earlier in this loop is no longer in the table.
            guard let connection = upgradesBySocket[ready.socket] else { continue }
            serviceUpgrade(connection, readable: ready.readable, writable: ready.writable)
        }
    }

    /// Sleeps in epoll on the upgraded connections' sockets alone, for at most `milliseconds`, and services
    /// the ready ones, when nothing else could need the loop (no transfer in libcurl's hands, no
    /// connection connecting): one system call a turn instead of poll(2) on the epoll descriptor and then
    /// epoll_wait for what it found (a round trip on one socket: four calls to three, as an event loop
    /// of its own would make). False when it did not sleep: the loop then polls as usual.
    func sleepOnUpgradeSocketsAlone(_ milliseconds: Int32) -> Bool {
        guard transfersByHandle.isEmpty, connectingUpgrades == 0, !upgradesBySocket.isEmpty,
              upgradeWatch.prepareWakeDescriptor(), markSleepingOnUpgradeWatch(wake: upgradeWatch.wakeDescriptor) else {
            return false
        }
        if upgradeWatch.collectReady(into: &readyUpgrades, timeout: milliseconds) {
            upgradeWatchWakes.add(1, ordering: .relaxed)
        }
        serviceCollectedUpgrades()
        return true
    }
}
