import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

// The manager's side of its engine and tasks: commands out, events in.
extension URLSessionManager: TaskControlling, EngineEvents {

    // MARK: TaskControlling

    func startTask(_ task: SessionTask) {
        guard let engine = currentEngine, let delegate = delegate(for: task) else {
            completeUnstartedTask(task, error: CurlErrorMapping.error(.cancelled, url: task.originalURL))
            return
        }
        delegate.engine = engine
        if let interceptor = task.interceptor ?? retrySettings.interceptor {
            startAdapting(task, with: interceptor, engine: engine)
            return
        }
        startOnEngine(task, engine)
    }

    func pauseTask(_ task: SessionTask) { delegate(for: task)?.engine?.pause(task) }
    func unpauseTask(_ task: SessionTask) { delegate(for: task)?.engine?.unpause(task) }

    func cancelTask(_ task: SessionTask) {
        // Waiting for its interceptor: nothing of it runs on the engine; the wait completes it.
        if cancelRetryWait(of: task) { return }
        if let engine = delegate(for: task)?.engine {
            engine.cancel(task)
        }
    }

    func completeUnstartedTask(_ task: SessionTask, error: URLError) {
        if let download = task as? SessionDownloadTask, let handler = download.takeResumeDataHandler() {
            handler(nil)
        }
        task.updateStorage { state in
            state.state = .completed
            state.error = error
        }
        transfersDidFinish([FinishedTransfer(task: task, outcome: TransferOutcome(error: error))])
    }

    func taskDidChangeRunState(_ task: SessionTask, resumed: Bool) {
        NotificationCenter.default.post(name: resumed ? .networkingTaskDidResume : .networkingTaskDidSuspend,
                                        object: task)
        emit(resumed ? .resumed(task) : .suspended(task))
    }

    // MARK: EngineEvents

    var followsRedirectsManually: Bool { currentHooks.value.taskWillPerformHTTPRedirection != nil }
    var wantsReceivedData: Bool { currentHooks.value.dataTaskDidReceiveData != nil }
    var keepsReceivedBody: Bool { !discardsReceivedBody }

    func transferDidReceiveResponse(_ task: SessionTask, statusCode: Int) -> ResponseDecision {
        if task.leanDelivery != nil { return .allow }
        let hooks = currentHooks
        if let download = task as? SessionDownloadTask, download.resumeState != nil, statusCode == 206,
           let hook = hooks.value.downloadTaskDidResume {
            hook(download, download.countOfBytesReceived, download.countOfBytesExpectedToReceive)
        }
        if let dataTask = task as? SessionDataTask, let hook = hooks.value.dataTaskDidReceiveResponse,
           let response = task.response {
            return apply(hook(dataTask, response), to: dataTask, hooks: hooks.value)
        }
        return .allow
    }

    func transfer(_ task: SessionTask, didReceive data: Data) {
        if let dataTask = task as? SessionDataTask { currentHooks.value.dataTaskDidReceiveData?(dataTask, data) }
    }

    func transferDidUpdateProgress(_ task: SessionTask, bytesSentDelta: Int64, bytesWrittenDelta: Int64) {
        let hooks = currentHooks.value
        let sendHook = bytesSentDelta > 0 ? hooks.taskDidSendBodyData : nil
        let writeHook = bytesWrittenDelta > 0 ? hooks.downloadTaskDidWriteData : nil
        let delegate = delegate(for: task)
        let followsUpload = bytesSentDelta != 0 && delegate?.followsUploadProgress == true
        let followsDownload = bytesWrittenDelta != 0 && delegate?.followsDownloadProgress == true
        // Most small requests: nothing observes progress, so the counts are not even read.
        guard sendHook != nil || writeHook != nil || followsUpload || followsDownload else { return }
        let (sent, expectedSend, received, expectedReceive) = task.updateStorage { state in
            (state.countOfBytesSent, state.countOfBytesExpectedToSend, state.countOfBytesReceived,
             state.countOfBytesExpectedToReceive)
        }
        sendHook?(task, bytesSentDelta, sent, expectedSend)
        if let writeHook, let download = task as? SessionDownloadTask {
            writeHook(download, bytesWrittenDelta, received, expectedReceive)
        }
        if followsUpload, let delegate {
            let progress = delegate.uploadProgress
            progress.totalUnitCount = expectedSend >= 0 ? expectedSend : max(sent, 0)
            progress.completedUnitCount = sent
            delegate.uploadProgressBlock?(progress)
            delegate.notifyObservers(upload: true, completed: sent, total: progress.totalUnitCount)
        }
        if followsDownload, let delegate {
            let progress = delegate.downloadProgress
            progress.totalUnitCount = expectedReceive >= 0 ? expectedReceive : -1
            progress.completedUnitCount = received
            delegate.downloadProgressBlock?(progress)
            delegate.notifyObservers(upload: false, completed: received, total: progress.totalUnitCount)
        }
    }

    func transferNeedsNewBodyStream(_ task: SessionTask) -> InputStream? {
        currentHooks.value.taskNeedNewBodyStream?(task)
    }

    func transfer(_ task: SessionTask, willPerformRedirection response: HTTPURLResponse,
                  newRequest: URLRequest) -> URLRequest? {
        guard let hook = currentHooks.value.taskWillPerformHTTPRedirection else { return newRequest }
        return hook(task, response, newRequest)
    }

    func transfer(_ task: SessionTask, didReceive challenge: HTTPAuthenticationChallenge) -> AuthenticationAnswer {
        var disposition = URLSession.AuthChallengeDisposition.performDefaultHandling
        var credential: URLCredential?
        // A streamed body has already handed its 401 to the caller: no second attempt can follow it.
        if task.leanDelivery?.stream != nil { return .completeWithResponse }
        // The lean path has no hooks: only the configuration's credential storage answers.
        if task.leanDelivery == nil, let handler = currentHooks.value.authenticationChallengeHandler {
            (disposition, credential) = handler(task, challenge)
        }
        switch disposition {
        case .useCredential:
            if let credential { return .useCredential(credential) }
            return .completeWithResponse
        case .cancelAuthenticationChallenge:
            return .cancel
        case .rejectProtectionSpace:
            return .completeWithResponse
        case .performDefaultHandling:
            // The stored default credential, tried once.
            guard challenge.previousFailureCount == 0,
                  let stored = storedCredential(for: challenge.protectionSpace)
            else { return .completeWithResponse }
            return .useCredential(stored)
        @unknown default:
            return .completeWithResponse
        }
    }

    func transfer(_ task: SessionTask, didReceive challenge: ClientCertificateChallenge) -> ClientCertificateAnswer {
        let sessionIdentity = settings.clientIdentity
        // The lean path has no hooks: the session's identity answers.
        guard task.leanDelivery == nil, let handler = currentHooks.value.clientCertificateChallengeHandler else {
            return sessionIdentity.map(ClientCertificateAnswer.present) ?? .proceedWithout
        }
        let (disposition, identity) = handler(task, challenge)
        switch disposition {
        case .useCredential:
            return identity.map(ClientCertificateAnswer.present) ?? .proceedWithout
        case .performDefaultHandling:
            return sessionIdentity.map(ClientCertificateAnswer.present) ?? .proceedWithout
        case .cancelAuthenticationChallenge:
            return .cancel
        case .rejectProtectionSpace:
            return .proceedWithout
        @unknown default:
            return .proceedWithout
        }
    }

    var connectivityPolicy: (waits: Bool, monitor: (any NetworkReachabilityMonitoring)?) {
        let settings = settings
        return (settings.waitsForConnectivity, settings.reachabilityManager)
    }

    func transferIsWaitingForConnectivity(_ task: SessionTask) {
        guard task.leanDelivery == nil else { return }
        currentHooks.value.taskIsWaitingForConnectivity?(task)
    }

    func transfer(_ task: SessionTask, willCache proposed: CachedURLResponse) -> CachedURLResponse? {
        guard task.leanDelivery == nil, let dataTask = task as? SessionDataTask,
              let hook = currentHooks.value.dataTaskWillCacheResponse else { return proposed }
        return hook(dataTask, proposed)
    }

    func transfersDidFinish(_ transfers: [FinishedTransfer]) {
        for finished in transfers { endObservation(of: finished) }
        var transfers = transfers
        if transfers.contains(where: { $0.task.leanDelivery != nil }) {
            // Lean tasks end here, on the engine thread: their callers resume now.
            for finished in transfers {
                finished.task.leanDelivery?.finish(finished.task, finished.outcome)
            }
            transfers.removeAll { $0.task.leanDelivery != nil }
            if transfers.isEmpty { return }
        }
        let sessionInterceptor = retrySettings.interceptor
        transfers.removeAll { deferForRetry($0, sessionInterceptor: sessionInterceptor) }
        if transfers.isEmpty { return }
        let hooks = currentHooks
        let (serializer, queue, group) = currentSettings
        let jobs = transfers.map { finished in
            finish(finished.task, outcome: finished.outcome, hooks: hooks.value,
                   defaults: (serializer, queue ?? DispatchQueue.main, group ?? defaultGroup))
        }
        deliverCompletions(jobs)
    }

    /// Runs the engine-thread part of a task's end (the file move, the hooks) and describes the rest.
    private func finish(_ task: SessionTask, outcome: TransferOutcome, hooks: SessionManagerHooks,
                        defaults: (serializer: any ResponseSerializing, queue: DispatchQueue, group: DispatchGroup))
        -> CompletionJob {
        let delegate = removeRecord(for: task)
        defer { delegate?.finishObservers() }
        var error = outcome.error
        var fileURL: URL?

        // Downloads: move the file before anything completes, as URLSession's delegate order has it.
        if let download = task as? SessionDownloadTask, let temporary = outcome.temporaryFile {
            let response = task.response ?? URLResponse(url: temporary, mimeType: nil, expectedContentLength: -1,
                                                        textEncodingName: nil)
            let target = hooks.downloadTaskDidFinishDownloading?(download, temporary)
                ?? delegate?.destination?(temporary, response)
            if let target {
                do {
                    if FileManager.default.fileExists(atPath: target.path) {
                        try FileManager.default.removeItem(at: target)
                    }
                    try FileManager.default.moveItem(at: temporary, to: target)
                    fileURL = target
                    NotificationCenter.default.post(name: .urlSessionDownloadTaskDidMoveFileSuccessfully, object: task,
                                                    userInfo: nil)
                } catch let moveError {
                    error = moveError
                    try? FileManager.default.removeItem(at: temporary)
                    NotificationCenter.default.post(name: .urlSessionDownloadTaskDidFailToMoveFile, object: task,
                                                    userInfo: (moveError as NSError).userInfo)
                }
            } else {
                try? FileManager.default.removeItem(at: temporary)
            }
        }
        if error != nil, outcome.error == nil { task.updateStorage { $0.error = error } }

        if let metrics = outcome.metrics { hooks.taskDidFinishCollectingMetrics?(task, metrics) }
        hooks.taskDidComplete?(task, error)
        let completion = delegate?.completion
        var serializer = defaults.serializer
        if case .result(let custom, _) = completion { serializer = custom }
        return CompletionJob(task: task, completion: completion, serializer: serializer, data: outcome.data,
                             error: error, fileURL: fileURL, metrics: outcome.metrics,
                             queue: delegate?.completionQueueOverride ?? defaults.queue, group: defaults.group)
    }

    /// The stored credential for `space`: its default one, else any. Matched field by field, because
    /// swift-corelibs' URLProtectionSpace has identity equality, so a lookup with an equal space fails.
    private func storedCredential(for space: URLProtectionSpace) -> URLCredential? {
        guard let storage = credentialStorage else { return nil }
        for (candidate, credentials) in storage.allCredentials
        where candidate.host == space.host && candidate.port == space.port && candidate.protocol == space.protocol
            && candidate.realm == space.realm && candidate.authenticationMethod == space.authenticationMethod {
            return storage.defaultCredential(for: candidate) ?? credentials.values.first
        }
        return nil
    }

    func engineDidInvalidate() {
        // Responses still waiting to be written reach the cache before the session says it is invalid.
        responseCache?.waitForWrites()
        currentHooks.value.sessionDidBecomeInvalid?(self, nil)
        NotificationCenter.default.post(name: .urlSessionDidInvalidate, object: self)
        if currentEngine == nil { finishEventStreams() }
    }
}
