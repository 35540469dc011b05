import CCurl
import CCurlShim
import Foundation

/// What the loop checks after each `curl_multi_perform` (engine thread): the transfers libcurl finished,
/// idle timers, and throttled transfers due to go on.
extension SessionEngine {
    /// Finishes the transfers libcurl reports done this turn.
    func collectCompletions() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                  let transfer = transfersByHandle[handle] else { continue }
            finish(transfer, code: message.pointee.data.result)
        }
    }

    /// Ends transfers whose idle timer expired (-1001), at most every ``idleCheckInterval``
    /// (``Transfer/idleTimeoutExpired()``).
    func checkIdleTransfers() {
        let now = clock.now
        guard now &- lastIdleCheck >= Self.idleCheckInterval else { return }
        lastIdleCheck = now
        var expired: [Transfer] = []
        for transfer in transfersByTask.values where transfer.idleTimeoutExpired() {
            expired.append(transfer)
        }
        for transfer in expired { finish(transfer, code: CURLE_OPERATION_TIMEDOUT) }
    }

    /// Resumes the throttled transfers whose pause is over.
    func fireThrottleTimers() {
        guard !throttleTimers.isEmpty else { return }
        let now = ContinuousClock.now
        var due: [Transfer] = []
        throttleTimers.removeAll { entry in
            if entry.deadline <= now { due.append(entry.transfer); return true }
            return false
        }
        for transfer in due where transfersByTask[ObjectIdentifier(transfer.task)] === transfer && transfer.throttled {
            transfer.throttled = false
            // A suspended task stays paused; resume() unpauses it.
            if !transfer.userPaused { curl_easy_pause(transfer.handle, afc_pause_cont) }
        }
    }
}
