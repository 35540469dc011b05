import CCurl
import CCurlShim
import Foundation

/// What the loop checks after libcurl ran (engine thread): the transfers libcurl finished, idle timers,
/// and throttled transfers due to go on.
extension SessionEngine {
    /// Finishes the transfers libcurl reports done this turn (in the multi handles it acted on).
    func collectCompletions() {
        var remaining: Int32 = 0
        while case let index = afc_socket_loop_next_acted(socketLoop), index >= 0 {
            while let message = curl_multi_info_read(multis[Int(index)], &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                      let transfer = transfersByHandle[handle] else { continue }
                finish(transfer, code: message.pointee.data.result)
            }
        }
    }

    /// Ends transfers whose idle timer expired (-1001) when the earliest one may have (``nextIdleCheck``),
    /// at most every ``idleCheckInterval`` (``Transfer/idleTimeoutExpired()``), and finds the next
    /// earliest: transfers that wait for bytes wake the loop only when a timer may expire.
    func checkIdleTransfers() {
        let now = clock.now
        guard now >= nextIdleCheck, now &- lastIdleCheck >= Self.idleCheckInterval else { return }
        lastIdleCheck = now
        var expired: [Transfer] = []
        var earliest = UInt64.max
        for transfer in transfersByTask.values {
            if transfer.idleTimeoutExpired() {
                expired.append(transfer)
            } else if let deadline = transfer.machine.idleDeadline, deadline < earliest {
                earliest = deadline
            }
        }
        nextIdleCheck = earliest
        for transfer in expired { finish(transfer, code: CURLE_OPERATION_TIMEDOUT) }
    }

    /// Makes the next idle check come no later than `deadline` (a transfer's timer that started).
    func scheduleIdleCheck(by deadline: UInt64) {
        if deadline < nextIdleCheck { nextIdleCheck = deadline }
    }

    /// Milliseconds until the loop must check idle timers (0: now), nil when no timer runs.
    var millisecondsToIdleCheck: Int? {
        guard nextIdleCheck != .max else { return nil }
        let due = max(nextIdleCheck, lastIdleCheck &+ Self.idleCheckInterval)
        let now = clock.now
        return due <= now ? 0 : Int((due - now + 999_999) / 1_000_000)
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
