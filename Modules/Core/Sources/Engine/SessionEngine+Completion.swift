import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Ending transfers (engine thread): the outcome from libcurl's result and the state machine's refusals,
/// the retries a redirect hook or challenge handler asks for, metrics, resume data, and the batch of
/// finished transfers handed to the session.
extension SessionEngine {
    func finish(_ transfer: Transfer, code: CURLcode) {
        confinement.assertOnOwner("finishing a transfer")
        detachFromMulti(transfer)
        transfersByHandle[transfer.handle] = nil
        if !throttleTimers.isEmpty { throttleTimers.removeAll { $0.transfer === transfer } }
        let task = transfer.task
        let cancelled = task.isCancelRequested
        if !cancelled && code != CURLE_OK && waitsForConnectivity(transfer, code: code) { return }
        // Nobody can read a lean task's metrics (its task is never handed out): not collected.
        let metrics = transfer.isLean ? nil : collectMetrics(transfer)
        if code == CURLE_OK && !cancelled { transfer.flushProgress() }

        let attemptEnded = code == CURLE_OK || (code == CURLE_WRITE_ERROR && transfer.abandonsRedirectBody)
        if !cancelled && attemptEnded, transfer.machine.mayRetry, let response = transfer.machine.lastHead?.response,
           retry(transfer, after: response) {
            return
        }
        if code == CURLE_OK && !cancelled {
            transfer.releaseHeldRedirect()
            transfer.deliverCacheAnswerBody()
        }
        transfersByTask[ObjectIdentifier(task)] = nil

        var outcome = TransferOutcome(metrics: metrics)
        if cancelled {
            outcome.error = cancellationError(of: task, url: transfer.requestURL)
        } else if let refusal = transfer.refusal {
            outcome.error = refusal
        } else if let bodyError = transfer.bodyError {
            var info: [String: Any] = [NSUnderlyingErrorKey: bodyError as NSError]
            if let url = transfer.requestURL { info[NSURLErrorFailingURLErrorKey] = url }
            outcome.error = URLError(.requestBodyStreamExhausted, userInfo: info)
        } else if transfer.tooManyRedirects {
            outcome.error = CurlErrorMapping.error(.httpTooManyRedirects, url: transfer.requestURL)
        } else if code == CURLE_PEER_FAILED_VERIFICATION {
            let host = transfer.requestURL?.host ?? ""
            let trust = trustContext.takeRejection(for: host)
            outcome.error = CurlErrorMapping.untrustedServerError(url: transfer.requestURL, host: host, trust: trust)
        } else if code == CURLE_OUT_OF_MEMORY || code == CurlResultCode.tooLarge, transfer.machine.finalHead == nil {
            // libcurl 7 reports a header line over its 100 KiB bound as "Out of memory", libcurl 8 as
            // CURLE_TOO_LARGE, which 8.14 also returns for more header lines than it accepts.
            outcome.error = CurlErrorMapping.error(.cannotParseResponse, url: transfer.requestURL,
                                                   description: Self.headerBoundDescription(transfer.machine))
        } else if code == CURLE_UNSUPPORTED_PROTOCOL && transfer.machine.lastHead == nil {
            // The request's scheme was checked before it went out, so libcurl means the status line
            // ("Unsupported HTTP version in response"); a refused redirect's Location comes after a head.
            outcome.error = CurlErrorMapping.error(
                .cannotParseResponse, url: transfer.requestURL,
                description: "The response's status line names no HTTP version libcurl supports.")
        } else if code != CURLE_OK {
            var detail: String?
            if let message = curl_easy_strerror(code) { detail = String(cString: message) }
            outcome.error = CurlErrorMapping.error(for: code, url: transfer.requestURL, detail: detail)
        } else if transfer.machine.finalHead == nil {
            outcome.error = CurlErrorMapping.error(.badServerResponse, url: transfer.requestURL)
        }

        if task is SessionDownloadTask {
            transfer.closeDownloadFile()
            if outcome.error == nil {
                outcome.temporaryFile = transfer.downloadFile
            } else if cancelled, task.wantsResumeData {
                outcome.resumeData = resumeData(for: transfer)
                if outcome.resumeData == nil, let file = transfer.downloadFile { unlink(file.path) }
            } else if let file = transfer.downloadFile {
                unlink(file.path)
            }
        } else if outcome.error == nil {
            outcome.data = transfer.body
        }
        if outcome.error == nil { updateCache(after: transfer, body: outcome.data) }
        transfer.body = Data()
        transfer.releaseResources()
        // Only a handle whose transfer ended normally keeps its configuration for the next one.
        let endedNormally = code == CURLE_OK && !cancelled && !transfer.wasPaused
        recycle(transfer.handle, state: endedNormally ? transfer.handleState : .dirty)
        deliver(transfer, outcome: outcome)
    }

    func deliver(_ transfer: Transfer, outcome: TransferOutcome) {
        let task = transfer.task
        forgetConnectivityDeadline(of: task)
        if let download = task as? SessionDownloadTask, let handler = download.takeResumeDataHandler() {
            handler(outcome.resumeData)
        }
        task.updateStorage { state in
            state.state = .completed
            state.error = outcome.error
            state.metrics = outcome.metrics
        }
        finishedTransfers.append(FinishedTransfer(task: task, outcome: outcome))
        // Before its slot is freed, so the host's waiting tasks start under what its answer said (later
        // transfers to a multiplexing host wait for its connection, CURLOPT_PIPEWAIT, instead of opening more).
        noteAnnouncedProtocol(of: transfer)
        if let host = admission.release(task) { startWaiting(on: host) }
    }

    /// -999, or the error the task was cancelled with (a response disposition the platform cannot honour).
    func cancellationError(of task: SessionTask, url: URL?) -> any Error {
        task.cancellationError ?? CurlErrorMapping.error(.cancelled, url: url)
    }

    func finishWithoutTransfer(_ task: SessionTask, error: any Error) {
        task.updateStorage { state in
            state.state = .completed
            state.error = error
        }
        finishedTransfers.append(FinishedTransfer(task: task, outcome: TransferOutcome(error: error)))
    }

    /// Reports the transfers that ended since the last report, in the order they ended.
    func reportFinishedTransfers() {
        guard !finishedTransfers.isEmpty else { return }
        let batch = finishedTransfers
        finishedTransfers.removeAll(keepingCapacity: true)
        events?.transfersDidFinish(batch)
    }

    /// Which of libcurl's header bounds a response met before its head was complete: the number of lines
    /// (libcurl 8.14 and later) when that many arrived, else the 100 KiB of one line.
    static func headerBoundDescription(_ machine: ResponseStateMachine) -> String {
        if let limit = CurlRuntime.responseHeaderCountLimit, machine.fieldLinesInAttempt >= limit {
            return "The response has more header lines than libcurl accepts (\(limit))."
        }
        return "A response header line exceeds libcurl's bound of 100 KiB."
    }

    /// Follows a redirect (through the hook when one decides), or answers an authentication challenge;
    /// true when the transfer was restarted.
    private func retry(_ transfer: Transfer, after response: HTTPURLResponse) -> Bool {
        guard let events else { return false }
        switch transfer.machine.redirect(after: response, of: transfer.request) {
        case .none: break
        case .tooManyRedirects:
            transfer.tooManyRedirects = true
            return false
        case .refuse(let refusal):
            transfer.refuse(refusal.code, url: refusal.url, description: refusal.description)
            return false
        case .propose(let proposed):
            let decided = transfer.redirectHookDecides
                ? events.transfer(transfer.task, willPerformRedirection: response, newRequest: proposed) : proposed
            guard let next = decided else { return false }
            if let refusal = transfer.machine.redirectChosen(next, from: transfer.request) {
                transfer.refuse(refusal.code, url: refusal.url, description: refusal.description)
                return false
            }
            transfer.request = next
            transfer.task.updateStorage { $0.currentRequest = next }
            restart(transfer)
            return true
        }
        guard let challenge = transfer.machine.challenge(after: response) else { return false }
        switch events.transfer(transfer.task, didReceive: challenge) {
        case .useCredential(let credential):
            transfer.machine.credentialChosen(credential, for: challenge)
            restart(transfer)
            return true
        case .completeWithResponse:
            return false
        case .cancel:
            transfer.task.cancel()
            return false
        }
    }

    private func restart(_ transfer: Transfer) {
        let old = transfer.handle
        transfer.replaceHandle(with: takeHandle())
        recycle(old, state: .dirty)
        attach(transfer)
    }

    private func collectMetrics(_ transfer: Transfer) -> SessionTaskMetrics {
        let handle = transfer.handle
        func seconds(_ info: CURLINFO) -> Double {
            var value: curl_off_t = 0
            afc_easy_getinfo_off(handle, info, &value)
            return Double(value) / 1_000_000
        }
        func long(_ info: CURLINFO) -> Int {
            var value = 0
            afc_easy_getinfo_long(handle, info, &value)
            return value
        }
        func offset(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            afc_easy_getinfo_off(handle, info, &value)
            return Int64(value)
        }
        let protocolName: String?
        switch long(CURLINFO_HTTP_VERSION) {
        case CURL_HTTP_VERSION_1_0: protocolName = "http/1.0"
        case CURL_HTTP_VERSION_1_1: protocolName = "http/1.1"
        case CURL_HTTP_VERSION_2_0: protocolName = "h2"
        case CURL_HTTP_VERSION_3: protocolName = "h3"
        default: protocolName = nil
        }
        return SessionTaskMetrics(
            taskInterval: DateInterval(start: transfer.startDate, end: max(transfer.startDate, Date())),
            redirectCount: long(CURLINFO_REDIRECT_COUNT) + transfer.machine.redirectCount,
            domainLookupDuration: seconds(CURLINFO_NAMELOOKUP_TIME_T),
            connectDuration: seconds(CURLINFO_CONNECT_TIME_T),
            secureConnectionDuration: seconds(CURLINFO_APPCONNECT_TIME_T),
            timeToFirstByte: seconds(CURLINFO_STARTTRANSFER_TIME_T),
            totalDuration: seconds(CURLINFO_TOTAL_TIME_T),
            networkProtocolName: protocolName,
            isReusedConnection: long(CURLINFO_NUM_CONNECTS) == 0,
            countOfRequestBodyBytesSent: offset(CURLINFO_SIZE_UPLOAD_T),
            countOfResponseBytesReceived: offset(CURLINFO_SIZE_DOWNLOAD_T) + Int64(long(CURLINFO_HEADER_SIZE)))
    }

    private func resumeData(for transfer: Transfer) -> Data? {
        guard let file = transfer.downloadFile, let response = transfer.machine.finalHead?.response,
              let url = response.url ?? transfer.requestURL else { return nil }
        let validator = response.value(forHTTPHeaderField: "ETag") ?? response.value(forHTTPHeaderField: "Last-Modified")
        guard let validator else { return nil }
        var info = stat()
        guard stat(file.path, &info) == 0, info.st_size > 0 else { return nil }
        let state = DownloadResumeState(url: url, headers: transfer.request.allHTTPHeaderFields ?? [:],
                                        temporaryFileName: file.lastPathComponent, bytesReceived: Int64(info.st_size),
                                        validator: validator)
        return state.encoded()
    }
}
