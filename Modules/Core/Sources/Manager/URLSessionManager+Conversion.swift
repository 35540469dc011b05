import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

// What a data task's response disposition does to its transfer (`dataTaskDidReceiveResponse`).

extension URLSession.ResponseDisposition {
    /// `.becomeDownload`, spelled without swift-corelibs-foundation's deprecation warning: Foundation's own
    /// URLSession on Linux cannot turn a response into a download, a ``URLSessionManager`` can (see
    /// ``SessionManagerHooks/dataTaskDidReceiveResponse``). Equal to `.becomeDownload` (raw value 2).
    public static let becomeDownloadTask = URLSession.ResponseDisposition(rawValue: 2)!
}

extension URLSessionManager {
    /// The `localizedDescription` of the error a data task fails with when
    /// ``SessionManagerHooks/dataTaskDidReceiveResponse`` answers `.becomeStream`.
    public static let streamConversionUnsupportedDescription =
        "Converting a data task to a stream task is not supported on this platform"

    /// Carries out `disposition` for `dataTask` (engine thread, its response headers just arrived).
    func apply(_ disposition: URLSession.ResponseDisposition, to dataTask: SessionDataTask,
               hooks: SessionManagerHooks) -> ResponseDecision {
        switch disposition {
        case .allow:
            return .allow
        case .cancel:
            dataTask.cancel()
            return .cancel
        case .becomeStream:
            dataTask.cancel(failingWith: streamConversionError(for: dataTask))
            return .cancel
        case .becomeDownload:
            guard let download = convertToDownload(dataTask, hooks: hooks) else { return .allow }
            return .becomeDownload(download)
        @unknown default:
            return .allow
        }
    }

    private func streamConversionError(for task: SessionTask) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: Self.streamConversionUnsupportedDescription]
        if let url = task.currentRequest?.url ?? task.originalURL {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        return URLError(.cancelled, userInfo: info)
    }

    /// Makes the download task that continues `dataTask`'s transfer and puts it in the data task's place
    /// (record, delegate), completes the data task silently and runs the hook. Nil when the data task is
    /// being cancelled or the manager no longer knows it (the transfer then goes on as a data task).
    private func convertToDownload(_ dataTask: SessionDataTask, hooks: SessionManagerHooks) -> SessionDownloadTask? {
        guard !dataTask.isCancelRequested else { return nil }
        let download = SessionDownloadTask(identifier: nextIdentifier(), continuing: dataTask, controller: self)
        guard replaceRecord(of: dataTask, with: download) != nil else { return nil }
        // Ended without completing on its own: its transfer, completion and progress are the download's now.
        dataTask.updateStorage { state in
            state.state = .completed
            state.error = nil
            state.successor = download
        }
        // Observers that follow tasks one by one (the activity indicator) see the download start and the
        // data task end, so their counts stay balanced; the data task's completion handler does not run.
        NotificationCenter.default.post(name: .networkingTaskDidResume, object: download)
        emit(.resumed(download))
        NotificationCenter.default.post(name: .networkingTaskDidComplete, object: dataTask, userInfo: [
            NetworkingTaskDidCompleteKey.responseSerializer: currentSettings.serializer,
        ])
        emit(.completed(dataTask, error: nil))
        hooks.dataTaskDidBecomeDownloadTask?(dataTask, download)
        return download
    }
}
