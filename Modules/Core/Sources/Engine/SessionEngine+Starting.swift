import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// How the engine starts a task it was handed: cancelled before it began, answered by a local load or
/// the cache, held for its host's connection limit or the network, or a transfer on a pooled handle.
extension SessionEngine {
    func begin(_ task: SessionTask) {
        guard events != nil else {
            task.updateStorage { $0.state = .completed }
            return
        }
        // One lock acquisition for the three things decided before the engine saw the task.
        let (cancelled, local, plan) = task.updateStorage { ($0.cancelRequested, $0.localLoad, $0.cachePlan) }
        // A confined task's cancel is a flag only: its command may have come before this one.
        if cancelled || (task.isConfined && task.isCancelRequested) {
            // Cancelled before the engine saw it: its cancel command found nothing to cancel.
            finishWithoutTransfer(task, error: cancellationError(of: task, url: task.requestURL))
            return
        }
        if let local {
            beginLocalLoad(task, local)
            return
        }
        switch plan {
        case .answer(let stored)?:
            answerFromCache(task, with: stored)
            return
        case .unavailable?:
            finishWithoutTransfer(task, error: CurlErrorMapping.error(
                .resourceUnavailable, url: task.requestURL,
                description: "The cache policy forbids loading and the cache holds no usable response."))
            return
        case .revalidate?, nil:
            break
        }
        startOnNetwork(task)
    }

    /// Starts `task`'s transfer, or queues it for a connection to its host.
    func startOnNetwork(_ task: SessionTask) {
        // The first start's is usually read on the thread that started the task (`prepareToStart`); taken,
        // so that a start after a wait for connectivity reads the task's URL as it is then.
        let prepared = task.updateStorage { state -> AdmissionTarget? in
            defer { state.preparedAdmission = nil }
            return state.preparedAdmission
        }
        guard let target = prepared ?? task.requestURL.flatMap({ AdmissionTarget(url: $0, settings: settings) }) else {
            startTransfer(task)  // no host: fails in configuration
            return
        }
        guard admission.admit(task, key: target.key, mayMultiplex: mayMultiplex(target)) else {
            return  // waits for a slot on its host
        }
        startTransfer(task)
    }

    /// Whether a request to `target` could be answered over HTTP/2 while its host's protocol is unknown:
    /// https without a proxy or a Unix socket, on a session that allows HTTP/2. Settings are read only
    /// until the host's first response said which protocol it speaks.
    private func mayMultiplex(_ target: AdmissionTarget) -> Bool {
        guard !target.viaProxy, target.isHTTPS, !admission.knowsProtocol(of: target.key),
              let events else { return false }
        let connection = events.connectionSettings
        return connection.httpVersion != .http1_1 && connection.unixSocketPath == nil
    }

    /// Starts every waiting task `host` has room for, best priority first.
    func startWaiting(on host: String) {
        guard !cancelOnInvalidate else { return }
        while let task = admission.next(for: host) { startTransfer(task) }
    }

    /// A host whose responses arrive over HTTP/2 or HTTP/3 multiplexes: its waiting tasks need no
    /// connection of their own, so they all start (the stream weight carries their priority). A host
    /// whose protocol was unknown and that answered over HTTP/1.x takes its waiting tasks up to the
    /// per-host limit. Each transfer's first response is looked at once; the others cost a flag test per loop.
    func admitToHostsThatAnnouncedTheirProtocol() {
        let probing = admission.isProbing
        for transfer in transfersByHandle.values
        where transfer.announcesMultiplexing || (probing && transfer.announcesSerial) {
            if let host = noteAnnouncedProtocol(of: transfer) { startWaiting(on: host) }
        }
    }

    /// Tells admission, once, what `transfer`'s response said about its host: HTTP/2 or 3 marks the host
    /// multiplexing; HTTP/1.x marks it serial while some host's protocol is being found out (otherwise it
    /// changes nothing). Clears the transfer's flags; returns the host when it was marked.
    @discardableResult
    func noteAnnouncedProtocol(of transfer: Transfer) -> String? {
        let multiplexes = transfer.announcesMultiplexing
        guard multiplexes || (transfer.announcesSerial && admission.isProbing) else { return nil }
        transfer.announcesMultiplexing = false
        transfer.announcesSerial = false
        guard let host = admission.host(of: transfer.task) else { return nil }
        if multiplexes { admission.markMultiplexing(host) } else { admission.markSerial(host) }
        return host
    }

    private func startTransfer(_ task: SessionTask) {
        guard let events else {
            task.updateStorage { $0.state = .completed }
            return
        }
        confinement.assertOnOwner("starting a transfer")
        let transfer = Transfer(task: task, events: events, settings: settings, handle: takeHandle(),
                                confinement: confinement, socketLoop: socketLoop, clock: clock,
                                streamHeads: streamHeads)
        if task.bodySource != nil {
            // Only a body source can ask to wait (a request's httpBody never does): most transfers skip
            // allocating this closure.
            transfer.onWait = { [unowned self] transfer, wait in
                throttleTimers.append((ContinuousClock.now.advanced(by: wait), transfer))
            }
            transfer.onReady = { [weak self] transfer, reader in
                let task = transfer.task
                reader.wakeWhenReady { [weak self] in self?.sendBodyReady(task) }
            }
        }
        transfer.onBecomeDownload = transferBecameDownload
        if case .revalidate(let stored, let conditional)? = task.updateStorage({ $0.cachePlan }) {
            for header in conditional { transfer.request.setValue(header.value, forHTTPHeaderField: header.name) }
            transfer.cacheRevalidation = stored
        }
        transfersByTask[ObjectIdentifier(task)] = transfer
        transfer.userPaused = task.state == .suspended
        attach(transfer)
    }

    /// Configures `transfer`'s handle and adds it to the multi handle, or finishes it with the setup error.
    func attach(_ transfer: Transfer) {
        do {
            let policy = trustContext.currentPolicy
            let trust = policy == nil ? nil : Unmanaged.passUnretained(trustContext).toOpaque()
            transfer.hostMultiplexes = admission.multiplexes(hostOf: transfer.task)
            try transfer.configure(trustContext: trust, pinsServerTrust: (policy?.pinningMode ?? .none) != .none)
        } catch {
            transfersByTask[ObjectIdentifier(transfer.task)] = nil
            transfer.releaseResources()
            recycle(transfer.handle, state: .dirty)
            var failure: any Error = error
            if !(error is URLError) && !(error is InvalidRequestError) {
                // The body could not be opened (a file removed since the task was made, say).
                var info: [String: Any] = [NSUnderlyingErrorKey: error as NSError]
                if let url = transfer.requestURL { info[NSURLErrorFailingURLErrorKey] = url }
                failure = URLError(.requestBodyStreamExhausted, userInfo: info)
            }
            deliver(transfer, outcome: TransferOutcome(error: failure))
            return
        }
        transfersByHandle[transfer.handle] = transfer
        addToMulti(transfer)
        if let deadline = transfer.machine.idleDeadline { scheduleIdleCheck(by: deadline) }
    }
}
