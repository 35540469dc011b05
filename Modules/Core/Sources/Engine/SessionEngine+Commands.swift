import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The commands other threads send the engine, carried out on its thread at the start of each turn.
extension SessionEngine {
    /// Carries out one command taken from the inbox.
    func handle(_ command: Command) {
        confinement.assertOnOwner("an engine command")
        switch command {
        case .start(let task):
            if invalidating && cancelOnInvalidate {
                finishWithoutTransfer(task, error: CurlErrorMapping.error(.cancelled, url: task.requestURL))
                return
            }
            begin(task)
        case .pause(let task):
            if let transfer = transfersByTask[ObjectIdentifier(task)] {
                transfer.userPaused = true
                curl_easy_pause(transfer.handle, afc_pause_all)
            }
        case .unpause(let task):
            if let transfer = transfersByTask[ObjectIdentifier(task)] {
                transfer.throttled = false
                transfer.userPaused = false
                curl_easy_pause(transfer.handle, afc_pause_cont)
            } else if let host = admission.waitingHost(of: task) {
                startWaiting(on: host)  // a suspended waiting task was skipped; a slot may be free
            }
        case .cancel(let task):
            if cancelLocalLoad(of: task) { return }
            if removeConnectivityWait(of: task) {
                finishWithoutTransfer(task, error: cancellationError(of: task, url: task.requestURL))
                return
            }
            if let transfer = transfersByTask[ObjectIdentifier(task)] {
                finish(transfer, code: CURLE_ABORTED_BY_CALLBACK)
            } else if admission.removeWaiting(task) {
                finishWithoutTransfer(task, error: cancellationError(of: task, url: task.requestURL))
            }
        case .invalidate(let cancelingTasks):
            invalidating = true
            if cancelingTasks {
                cancelOnInvalidate = true
                for task in admission.removeAllWaiting() {
                    task.cancel()
                    finishWithoutTransfer(task, error: CurlErrorMapping.error(.cancelled, url: task.requestURL))
                }
                for transfer in Array(transfersByTask.values) {
                    transfer.task.cancel()
                    finish(transfer, code: CURLE_ABORTED_BY_CALLBACK)
                }
                cancelAllLocalLoads()
                closeAllUpgrades(error: CurlErrorMapping.error(.cancelled, url: nil))
                for entry in connectivityWaits where removeConnectivityWait(of: entry.task) {
                    entry.task.cancel()
                    finishWithoutTransfer(entry.task, error: cancellationError(of: entry.task, url: entry.task.requestURL))
                }
            }
        case .connectivityChanged:
            connectivityChanged()
        case .finished(let finished):
            finishedTransfers.append(finished)
        case .run(let job):
            pendingJobs.append(job)
        case .upgrade(let kind, let connection):
            switch kind {
            case .open: beginUpgrade(connection)
            case .service: serviceUpgrade(connection)
            }
        case .localLoadEvent(let load, let event):
            handleLocalLoadEvent(event, from: load)
        case .bodyReady(let task):
            // The body source has bytes: a transfer it held goes on (a suspended one stays paused).
            if let transfer = transfersByTask[ObjectIdentifier(task)], transfer.awaitsBodySource {
                transfer.awaitsBodySource = false
                if !transfer.userPaused { curl_easy_pause(transfer.handle, afc_pause_cont) }
            }
        }
    }
}
