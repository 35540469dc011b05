import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A transfer's progress: counts kept on the task, reported to the session at most every few
/// milliseconds or megabytes, and the idle timer.
extension Transfer {
    /// libcurl's progress callback: new counts go to the task and, now and then, to the session. libcurl
    /// calls it whenever it runs the transfer, so a call that finds nothing moved returns at once: the
    /// engine checks idle timers on its own (``SessionEngine/checkIdleTransfers()``), and a cancel
    /// arrives as an engine command. Returns false to abort the transfer.
    func progress(downloaded: Int64, uploaded: Int64) -> Bool {
        confinement.assertOnOwner("libcurl's progress callback")
        let received = downloaded + machine.resumeOffset
        guard received != lastReceived || uploaded != lastSent else { return true }
        if task.isCancelRequested { return false }
        lastSent = uploaded
        lastReceived = received
        let headersArrived = machine.finalHead != nil
        task.updateStorage { state in
            state.countOfBytesSent = uploaded
            if headersArrived { state.countOfBytesReceived = received }
        }
        // Progress objects and closures are costly; report at most every few milliseconds or megabytes
        // (the first change at once, the last one from flushProgress()).
        let now = clock.now
        machine.madeProgress(at: now)
        if now &- lastReportTime >= 5_000_000 || received - reportedReceived >= 1 << 20
            || uploaded - reportedSent >= 1 << 20 {
            report(at: now)
        }
        return !task.isCancelRequested
    }

    /// Reports counts not yet reported (before completion, so progress ends at the final values).
    func flushProgress() {
        if !isLean, lastSent != reportedSent || lastReceived != reportedReceived {
            report(at: clock.now)
        }
    }

    /// Whether the idle timeout (URLSession's `timeoutIntervalForRequest`) expired without a byte moving;
    /// when it did, the transfer is refused with -1001. The progress callback asks for other transfers,
    /// the engine's idle check for lean ones (which have no progress callback).
    func idleTimeoutExpired() -> Bool {
        guard let expired = machine.idleTimeoutExpired(at: clock.now, isHeld: userPaused || throttled) else { return false }
        refuse(expired)
        return true
    }

    private func report(at time: UInt64) {
        let sentDelta = lastSent - reportedSent
        let receivedDelta = lastReceived - reportedReceived
        reportedSent = lastSent
        reportedReceived = lastReceived
        lastReportTime = time
        events.transferDidUpdateProgress(task, bytesSentDelta: sentDelta, bytesWrittenDelta: receivedDelta)
    }
}
