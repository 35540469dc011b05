import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each attempt's observation (`SessionPlugins.observer`): begun where the task is resumed (so a
/// tracing parent is the caller's, and headers the observer adds go out with the request), ended with
/// the attempt. With no observer this is one nil check.
extension URLSessionManager {
    func beginObservation(of task: SessionTask, by observer: any RequestObserver) {
        // `URLSessionManager.observed`, not `Self.observed`: naming the dynamic Self captures it, and a
        // closure capturing more than it needs takes a larger context for every request.
        let attempt = ObservedAttempt(taskIdentifier: task.taskIdentifier,
                                      context: task.updateStorage { $0.observationContext },
                                      request: task.currentRequestReader(URLSessionManager.observed))
        guard let observation = observer.attemptWillStart(attempt) else { return }
        let added = observation.addedHeaderFields
        // Only added fields change the request: otherwise a task made from an HTTPRequest keeps sending
        // without a URLRequest.
        var request = added.isEmpty ? nil : task.currentRequest
        for (name, value) in added { request?.setValue(value, forHTTPHeaderField: name) }
        task.updateStorage { state in
            state.observation = observation
            if let request { state.currentRequest = request }
        }
    }

    func endObservation(of finished: FinishedTransfer) {
        let ended = finished.task.updateStorage { state -> ((any AttemptObservation), Int64, Int64, Int?)? in
            guard let observation = state.observation else { return nil }
            state.observation = nil
            return (observation, state.countOfBytesSent, state.countOfBytesReceived, state.responseHead?.statusCode)
        }
        guard let (observation, sent, received, status) = ended else { return }
        // The lean path keeps no running counts: its body's size is the count.
        let body = Int64(finished.outcome.data?.count ?? 0)
        observation.attemptDidEnd(ObservedAttemptEnd(statusCode: status, error: finished.outcome.error,
                                                     bytesSent: sent, bytesReceived: max(received, body)))
    }

    /// `request` as observers see it (nil without a URL).
    static func observed(_ request: URLRequest) -> ObservedRequest? {
        guard let url = request.url else { return nil }
        let fields = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        return ObservedRequest(method: request.httpMethod?.uppercased() ?? "GET", url: url, headerFields: fields)
    }
}

extension SessionEngine {
    /// Reports the open connections and the tasks waiting (for a connection or for the network) to the
    /// session's observer when either changed since the last report.
    func reportGauges() {
        let current = (connections: openSockets, waiting: admission.waitingCount + connectivityWaits.count)
        guard current != reportedGauges, let observer = events?.observer else { return }
        reportedGauges = current
        observer.gaugesDidChange(SessionGauges(openConnections: current.connections, waitingTasks: current.waiting))
    }
}
