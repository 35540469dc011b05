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
            completeUnstartedTask(task, error: CurlErrorMapping.error(.cancelled, url: task.originalRequest?.url))
            return
        }
        delegate.engine = engine
        if !engine.start(task) {
            completeUnstartedTask(task, error: CurlErrorMapping.error(.cancelled, url: task.originalRequest?.url))
        }
    }

    func pauseTask(_ task: SessionTask) { delegate(for: task)?.engine?.pause(task) }
    func unpauseTask(_ task: SessionTask) { delegate(for: task)?.engine?.unpause(task) }

    func cancelTask(_ task: SessionTask) {
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
        transfer(task, didFinishWith: TransferOutcome(error: error))
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
        let hooks = currentHooks
        let sent = task.countOfBytesSent, expectedSend = task.countOfBytesExpectedToSend
        let received = task.countOfBytesReceived, expectedReceive = task.countOfBytesExpectedToReceive
        if bytesSentDelta > 0 { hooks.value.taskDidSendBodyData?(task, bytesSentDelta, sent, expectedSend) }
        if bytesWrittenDelta > 0, let download = task as? SessionDownloadTask {
            hooks.value.downloadTaskDidWriteData?(download, bytesWrittenDelta, received, expectedReceive)
        }
        guard let delegate = delegate(for: task) else { return }
        if bytesSentDelta != 0, delegate.followsUploadProgress {
            let progress = delegate.uploadProgress
            progress.totalUnitCount = expectedSend >= 0 ? expectedSend : max(sent, 0)
            progress.completedUnitCount = sent
            delegate.uploadProgressBlock?(progress)
            delegate.notifyObservers(upload: true, completed: sent, total: progress.totalUnitCount)
        }
        if bytesWrittenDelta != 0, delegate.followsDownloadProgress {
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
        if let handler = currentHooks.value.authenticationChallengeHandler {
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

    func transfer(_ task: SessionTask, didFinishWith outcome: TransferOutcome) {
        let hooks = currentHooks
        let delegate = removeRecord(for: task)
        defer { delegate?.finishObservers() }
        var error = outcome.error
        var fileURL: URL?

        // Downloads: move the file before anything completes, as URLSession's delegate order has it.
        if let download = task as? SessionDownloadTask, let temporary = outcome.temporaryFile {
            let response = task.response ?? URLResponse(url: temporary, mimeType: nil, expectedContentLength: -1,
                                                        textEncodingName: nil)
            let target = hooks.value.downloadTaskDidFinishDownloading?(download, temporary)
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

        if let metrics = outcome.metrics { hooks.value.taskDidFinishCollectingMetrics?(task, metrics) }
        if let dataTask = task as? SessionDataTask, error == nil, let hook = hooks.value.dataTaskWillCacheResponse,
           let cache = sessionConfiguration.urlCache, let response = task.response,
           let request = task.originalRequest, let data = outcome.data {
            if let cached = hook(dataTask, CachedURLResponse(response: response, data: data)) {
                cache.storeCachedResponse(cached, for: request)
            }
        }
        hooks.value.taskDidComplete?(task, error)
        complete(task, delegate: delegate, outcome: outcome, error: error, fileURL: fileURL)
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
        currentHooks.value.sessionDidBecomeInvalid?(self, nil)
        NotificationCenter.default.post(name: .urlSessionDidInvalidate, object: self)
        if currentEngine == nil { finishEventStreams() }
    }

    // MARK: Completion delivery

    private func complete(_ task: SessionTask, delegate: TaskDelegate?, outcome: TransferOutcome,
                          error: (any Error)?, fileURL: URL?) {
        let (managerSerializer, managerQueue, managerGroup) = currentSettings
        let group = managerGroup ?? defaultGroup
        let queue = delegate?.completionQueueOverride ?? managerQueue ?? DispatchQueue.main
        let completion = delegate?.completion
        let isDownload = task is SessionDownloadTask
        let serializer: any ResponseSerializing
        if case .result(let custom, _) = completion { serializer = custom } else { serializer = managerSerializer }
        let data = outcome.data
        let metrics = outcome.metrics

        processingQueue.async(group: group) { [self] in
            var object: (any Sendable)?
            var finalError = error
            if isDownload {
                object = fileURL
            } else if error == nil {
                let result = serializer.responseObject(for: task.response, data: data ?? Data())
                object = result.object
                finalError = result.error
            }
            let userInfo = notificationUserInfo(serializer: serializer, data: data, object: object, error: finalError,
                                                fileURL: fileURL, metrics: metrics)
            let deliver: @Sendable () -> Void = { [self, object, finalError] in
                switch completion {
                case .data(let handler): handler(task.response, object, finalError)
                case .taskData(let handler):
                    // A data task that became a download reports as itself (AF's blocks capture the data task).
                    handler((task as? SessionDownloadTask)?.predecessor ?? task, task.response, object, finalError)
                case .download(let handler): handler(task.response, fileURL, finalError)
                case .result(_, let handler):
                    handler(DataTaskResult(request: task.currentRequest, response: task.response, data: data,
                                           object: object, error: finalError))
                case nil: break
                }
                NotificationCenter.default.post(name: .networkingTaskDidComplete, object: task,
                                                userInfo: userInfo.value)
                emit(.completed(task, error: finalError))
            }
            if queue === processingQueue {
                // Already there (the async API's default): a second hop would only cost a thread wake-up.
                deliver()
            } else {
                queue.async(group: group, execute: deliver)
            }
        }
    }

    private func notificationUserInfo(serializer: any ResponseSerializing, data: Data?, object: (any Sendable)?,
                                      error: (any Error)?, fileURL: URL?,
                                      metrics: SessionTaskMetrics?) -> UncheckedUserInfo {
        // Keyed by AnyHashable as Notification stores it: a [String: Any] would be converted on every post.
        var info: [AnyHashable: Any] = [NetworkingTaskDidCompleteKey.responseSerializer: serializer]
        if let data, !data.isEmpty { info[NetworkingTaskDidCompleteKey.responseData] = data }
        if let error { info[NetworkingTaskDidCompleteKey.error] = error }
        if let fileURL { info[NetworkingTaskDidCompleteKey.assetPath] = fileURL }
        if let object, fileURL == nil { info[NetworkingTaskDidCompleteKey.serializedResponse] = object }
        if let metrics { info[NetworkingTaskDidCompleteKey.sessionTaskMetrics] = metrics }
        return UncheckedUserInfo(value: info)
    }
}

/// A notification userInfo crossing to the completion queue.
private struct UncheckedUserInfo: @unchecked Sendable {
    // @unchecked Sendable: built once from Sendable values (serializer, Data, errors, URL, metrics) and
    // only read after.
    let value: [AnyHashable: Any]
}
