import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// `waitsForConnectivity`: a transfer that could not reach its host while the session's reachability
/// monitor says the network is down does not fail; its task waits, announced once through the
/// task-is-waiting hook, and starts again when the monitor reports the network back, or fails with
/// -1001 once the resource timeout (counted from its first start) runs out.
///
/// Only connection failures wait (no route, host not resolved, connection refused), never once a
/// response began. A monitor that was not started is started, and a task waits for its first report.
extension SessionEngine {
    /// A task waiting for the network.
    struct ConnectivityWait {
        let task: SessionTask
        let deadline: ContinuousClock.Instant
    }

    /// Whether `transfer`'s failure with `code` makes its task wait instead; if so, the task waits.
    func waitsForConnectivity(_ transfer: Transfer, code: CURLcode) -> Bool {
        guard code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST,
              transfer.machine.finalHead == nil, transfer.refusal == nil, let events else { return false }
        let policy = events.connectivityPolicy
        guard policy.waits, let monitor = policy.monitor else { return false }
        let status = monitor.networkReachabilityStatus
        guard !status.isReachable else { return false }  // the network is up: the host is the problem
        let task = transfer.task
        transfersByTask[ObjectIdentifier(task)] = nil
        if let file = transfer.downloadFile { unlink(file.path) }
        transfer.body = Data()
        transfer.releaseResources()
        recycle(transfer.handle, state: .dirty)
        if let host = admission.release(task) { startWaiting(on: host) }

        let deadline = connectivityDeadlines[ObjectIdentifier(task)]
            ?? ContinuousClock.now.advanced(by: .seconds(max(0, settings.resourceTimeout - Date().timeIntervalSince(transfer.startDate))))
        connectivityDeadlines[ObjectIdentifier(task)] = deadline
        connectivityWaits.append(ConnectivityWait(task: task, deadline: deadline))
        observe(monitor)
        if status == .unknown { monitor.startMonitoring() }
        if task.updateStorage({ state -> Bool in
            defer { state.announcedWaiting = true }
            return !state.announcedWaiting
        }) {
            events.transferIsWaitingForConnectivity(task)
        }
        return true
    }

    /// The monitor reported a change: waiting tasks start if the network is back.
    func connectivityChanged() {
        guard !connectivityWaits.isEmpty, let monitor = observedMonitor, monitor.networkReachabilityStatus.isReachable else { return }
        let waiting = connectivityWaits
        connectivityWaits.removeAll()
        stopObserving()
        for entry in waiting { startOnNetwork(entry.task) }
    }

    /// Fails the waiting tasks whose resource timeout ran out.
    func expireConnectivityWaits() {
        guard !connectivityWaits.isEmpty else { return }
        let now = ContinuousClock.now
        var expired: [SessionTask] = []
        connectivityWaits.removeAll { entry in
            if entry.deadline <= now { expired.append(entry.task); return true }
            return false
        }
        for task in expired {
            connectivityDeadlines[ObjectIdentifier(task)] = nil
            finishWithoutTransfer(task, error: CurlErrorMapping.error(
                .timedOut, url: task.currentRequest?.url,
                description: "The request timed out while waiting for the network."))
        }
        if connectivityWaits.isEmpty { stopObserving() }
    }

    /// The earliest deadline among waiting tasks.
    var nextConnectivityDeadline: ContinuousClock.Instant? { connectivityWaits.map(\.deadline).min() }

    /// Removes `task` from the waiting tasks; true when it was waiting.
    func removeConnectivityWait(of task: SessionTask) -> Bool {
        guard let index = connectivityWaits.firstIndex(where: { $0.task === task }) else { return false }
        connectivityWaits.remove(at: index)
        connectivityDeadlines[ObjectIdentifier(task)] = nil
        if connectivityWaits.isEmpty { stopObserving() }
        return true
    }

    /// Forgets the deadline of a task that ended.
    func forgetConnectivityDeadline(of task: SessionTask) {
        if !connectivityDeadlines.isEmpty { connectivityDeadlines[ObjectIdentifier(task)] = nil }
    }

    private func observe(_ monitor: any NetworkReachabilityMonitoring) {
        guard observedMonitor !== monitor else { return }
        stopObserving()
        observedMonitor = monitor
        connectivityObserver = NotificationCenter.default.addObserver(
            forName: .networkingReachabilityDidChange, object: monitor, queue: nil) { [weak self] _ in
            self?.sendConnectivityChanged()
        }
    }

    func stopObserving() {
        if let connectivityObserver { NotificationCenter.default.removeObserver(connectivityObserver) }
        connectivityObserver = nil
        observedMonitor = nil
    }
}
