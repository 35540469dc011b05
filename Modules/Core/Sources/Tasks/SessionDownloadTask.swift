import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task that writes its response body to a temporary file, then moves it to the destination the
/// session manager's closure returns (`URLSessionDownloadTask`).
public final class SessionDownloadTask: SessionTask, @unchecked Sendable {
    // @unchecked Sendable: restated, as Swift requires of a subclass of an unchecked class; adds no state.

    /// Cancels the download and hands `completionHandler` data that ``URLSessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``
    /// continues from (also in another process: the partial file stays in the temporary directory).
    /// The data is `nil` when the transfer cannot be resumed (nothing received yet, or the server gave
    /// neither `ETag` nor `Last-Modified`). The handler runs on the engine thread, before the task completes.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        updateStorage { $0.resumeDataHandler = completionHandler }
        let willCancel = state == .running || state == .suspended
        cancel(producingResumeData: true)
        if !willCancel { completionHandler(nil) }
    }

    /// A download task continuing the transfer of `dataTask` (`.becomeDownload`): same requests,
    /// response, counts, priority and description; started, in the data task's run state.
    convenience init(identifier: Int, continuing dataTask: SessionDataTask, controller: any TaskControlling) {
        self.init(identifier: identifier, request: dataTask.originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/")),
                   bodySource: dataTask.bodySource, controller: controller)
        let inherited = dataTask.updateStorage { $0 }
        updateStorage { state in
            state = inherited
            state.started = true
            state.metrics = nil
            state.error = nil
            state.successor = nil
            state.predecessor = dataTask
        }
    }

    /// The data task this download task continues after `.becomeDownload`, if any.
    var predecessor: SessionDataTask? { updateStorage { $0.predecessor } }

    /// Takes the resume data handler (engine side).
    func takeResumeDataHandler() -> (@Sendable (Data?) -> Void)? {
        updateStorage { state in
            defer { state.resumeDataHandler = nil }
            return state.resumeDataHandler
        }
    }
}
