import CCurl
import CCurlShim
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the loop waits on upgraded connections (engine thread): their epoll descriptor in the loop's poll
/// beside the transfers' sockets, or, with no transfer at all, epoll alone.
extension SessionEngine {
    /// Sleeps in `curl_multi_poll` for at most `milliseconds`, watching the transfers' sockets, the
    /// wake-up pipe and ``upgradePollDescriptors`` (whose `revents` it fills).
    func pollWaiting(_ milliseconds: Int32) {
        if upgradePollDescriptors.isEmpty {
            curl_multi_poll(multi, nil, 0, milliseconds, nil)
        } else {
            let count = UInt32(upgradePollDescriptors.count)
            upgradePollDescriptors.withUnsafeMutableBufferPointer { _ = curl_multi_poll(multi, $0.baseAddress, count, milliseconds, nil) }
        }
    }

    /// Fills ``upgradePollDescriptors`` with what the loop's poll watches for upgraded connections: the
    /// epoll descriptor while any socket is watched (one descriptor however many connections are open).
    func collectUpgradeWaitDescriptors() {
        upgradePollDescriptors.removeAll(keepingCapacity: true)
        guard !upgradesBySocket.isEmpty, upgradeWatch.descriptor >= 0 else { return }
        upgradePollDescriptors.append(curl_waitfd(fd: upgradeWatch.descriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0))
    }

    /// Services the connections whose sockets epoll found ready (asked without waiting when the loop did
    /// not poll, or its poll found the epoll descriptor readable).
    func serviceReadyUpgrades(polled: Bool) {
        guard !upgradesBySocket.isEmpty else { return }
        if polled, let epoll = upgradePollDescriptors.first, epoll.revents == 0 { return }
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
