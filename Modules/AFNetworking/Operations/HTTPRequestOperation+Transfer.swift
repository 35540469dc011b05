import AFCore
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequestOperation {
    /// Starts (or continues, after a pause) the transfer on the operation's session.
    func beginTransfer() {
        let current = options.withLock { $0 }
        let (session, sink, offset, validator) = run.withLock { run in
            let session = run.session ?? chooseSession(&run, current)
            let sink = run.sink ?? OperationOutputSink(destination: current.settings.output)
            run.sink = sink
            let offset = run.continuesAfterPause ? sink.bytesWritten : 0
            run.requestedOffset = offset
            run.bodyWasComplete = false
            run.discardsBody = false
            return (session, sink, offset, run.validator)
        }
        do {
            try sink.open()
        } catch {
            run.withLock { $0.outputError = error }
            finish()
            return
        }
        var request = self.request
        if offset > 0 {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            if let validator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        }
        let task = session.makeTask(for: self, request: request, body: bodySource, queue: callbackQueue) {
            [weak self] task, response, error in
            self?.transfer(task, didCompleteWith: response, error: error)
        }
        let isCurrent = run.withLock { run -> Bool in
            guard run.state == .executing else { return false }
            run.task = task
            return true
        }
        if isCurrent { task.resume() }
    }

    /// The manager's session when this operation's trust and credential-storage choices still match it
    /// and it has no redirect closure; otherwise a session of the operation's own.
    private func chooseSession(_ run: inout Run, _ current: Options) -> OperationSession {
        let session: OperationSession
        let decidesRedirects = current.redirectResponse != nil
        if let offered = run.offeredSession,
           offered.terms.admit(current.settings.securityPolicy, usesCredentialStorage: current.settings.shouldUseCredentialStorage,
                               decidesRedirects: decidesRedirects) {
            session = offered
        } else {
            let terms = OperationSession.Terms(securityPolicy: current.settings.securityPolicy,
                                               usesCredentialStorage: current.settings.shouldUseCredentialStorage,
                                               decidesRedirects: decidesRedirects)
            session = OperationSession(configuration: sessionConfiguration, terms: terms)
            run.ownsSession = true
        }
        run.offeredSession = nil
        run.session = session
        return session
    }

    /// Offered by the manager that made the operation; taken at the start if the terms still match.
    func offer(_ session: OperationSession) {
        run.withLock { run in
            if run.session == nil { run.offeredSession = session }
        }
    }

    // MARK: Events, routed by the session (engine thread unless noted)

    /// The final response arrived. For a resumed transfer: 206 appends; a 416 for exactly the bytes kept
    /// says the body is whole (the earlier response stays); another 2xx starts the body over; any other
    /// answer becomes the response but its body is not written, so the bytes kept are not lost. Checked
    /// and done under the run lock, so a pause cannot slip in between.
    func transfer(_ task: SessionDataTask, didReceive response: URLResponse) -> URLSession.ResponseDisposition {
        run.withLock { run in
            guard run.task === task else { return .cancel }
            let response = response as? HTTPURLResponse
            let status = response?.statusCode ?? 0
            if run.requestedOffset > 0, status == 416,
               ContentRange.confirmsComplete(header: response?.value(forHTTPHeaderField: "Content-Range"),
                                             offset: run.requestedOffset) {
                run.bodyWasComplete = true
                run.discardsBody = true
                return .allow
            }
            run.response = response
            guard run.requestedOffset > 0, status != 206, let sink = run.sink else { return .allow }
            guard (200..<300).contains(status) else {
                run.discardsBody = true
                return .allow
            }
            do {
                try sink.restart()
                return .allow
            } catch {
                run.outputError = error
                return .cancel
            }
        }
    }

    /// A chunk of the body arrived. Written under the run lock: once a pause detached the transfer, no
    /// stale chunk can change the offset the next transfer asks for.
    func transfer(_ task: SessionDataTask, didReceive data: Data) {
        let written: (total: Int64, offset: Int64)? = run.withLock { run in
            guard run.task === task, !run.discardsBody, let sink = run.sink else { return nil }
            do {
                try sink.write(data)
            } catch {
                run.outputError = error
                return nil
            }
            return (sink.bytesWritten, run.requestedOffset)
        }
        guard let written else {
            if run.withLock({ $0.outputError != nil && $0.task === task }) { task.cancel() }
            return
        }
        guard let progress = options.withLock({ $0.downloadProgress }) else { return }
        let expected = task.countOfBytesExpectedToReceive
        let restarted = written.total < written.offset
        progress(data.count, written.total, expected < 0 ? -1 : expected + (restarted ? 0 : written.offset))
    }

    /// Body bytes were sent.
    func transfer(_ task: SessionTask, didSend sent: Int64, totalSent: Int64, expected: Int64) {
        guard run.withLock({ $0.task === task }), let progress = options.withLock({ $0.uploadProgress }) else { return }
        progress(Int(sent), totalSent, expected)
    }

    /// A redirect: the redirect closure decides; without one it is followed.
    func redirect(_ newRequest: URLRequest, after response: HTTPURLResponse) -> URLRequest? {
        guard let block = options.withLock({ $0.redirectResponse }) else { return newRequest }
        return block(self, newRequest, response)
    }

    /// An authentication challenge: the challenge closure, else the credential once, else the credential
    /// storage when allowed.
    func answer(_ challenge: HTTPAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let current = options.withLock { $0 }
        if let block = current.authenticationChallenge { return block(self, challenge) }
        if let credential = current.settings.credential, challenge.previousFailureCount == 0 {
            return (.useCredential, credential)
        }
        return current.settings.shouldUseCredentialStorage ? (.performDefaultHandling, nil) : (.rejectProtectionSpace, nil)
    }

    /// Callback queue: a transfer ended. Ignored for a transfer a pause or cancel already detached. A
    /// transfer that found the body whole keeps the earlier response and ends without error.
    func transfer(_ task: SessionTask, didCompleteWith response: URLResponse?, error: (any Error)?) {
        let isCurrent = run.withLock { run -> Bool in
            guard run.task === task else { return false }
            run.task = nil
            if run.bodyWasComplete {
                run.transportError = nil
            } else {
                if let response = response as? HTTPURLResponse { run.response = response }
                run.transportError = error
            }
            return true
        }
        if isCurrent { finish() }
    }

    /// The validator `If-Range` carries: the ETag (header names compared without case), else Last-Modified.
    static func validator(of response: HTTPURLResponse) -> String? {
        func header(_ name: String) -> String? {
            for (key, value) in response.allHeaderFields {
                if let key = key as? String, key.caseInsensitiveCompare(name) == .orderedSame { return value as? String }
            }
            return nil
        }
        return header("ETag") ?? header("Last-Modified")
    }
}
