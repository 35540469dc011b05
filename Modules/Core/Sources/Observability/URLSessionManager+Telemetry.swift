import Foundation
import Metrics
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each attempt's telemetry: begun where the task is resumed (so the span's parent is the caller's
/// service context, and its propagation headers go out with the request), ended with the attempt.
extension URLSessionManager {
    func beginTelemetry(of task: SessionTask) {
        var observability = observabilitySettings
        if let own = task.updateStorage({ $0.logger }) { observability.logger = own }
        guard let (telemetry, request) = RequestTelemetry.begin({ task.currentRequest }, identifier: task.taskIdentifier,
                                                                 settings: observability) else { return }
        // Only a span changes the request (its context's headers): the request sent otherwise stays the
        // original, which a task made from an HTTPRequest sends without a URLRequest.
        let traced = telemetry.span == nil ? nil : request
        task.updateStorage { state in
            state.telemetry = telemetry
            if let traced { state.currentRequest = traced }
        }
    }

    func endTelemetry(of finished: FinishedTransfer) {
        let ended = finished.task.updateStorage { state -> (RequestTelemetry, Int64, Int64, HTTPURLResponse?)? in
            guard let telemetry = state.telemetry else { return nil }
            state.telemetry = nil
            return (telemetry, state.countOfBytesSent, state.countOfBytesReceived,
                    state.responseHead?.response)
        }
        guard let (telemetry, sent, received, response) = ended else { return }
        // The lean path keeps no running counts: its body's size is the count.
        let body = Int64(finished.outcome.data?.count ?? 0)
        telemetry.end(response: response, error: finished.outcome.error, bytesSent: sent, bytesReceived: max(received, body))
    }
}

extension URLSessionManager {
    var gaugeMetrics: (any MetricsFactory)? {
        observabilitySettings.metricsFactory ?? (MetricsSystem.factory is NOOPMetricsHandler ? nil : MetricsSystem.factory)
    }
}

extension SessionEngine {
    /// Records the open connections and the tasks waiting (for a connection or for the network) when
    /// either changed since the last report, if something records metrics.
    func reportGauges() {
        let current = (connections: openSockets.pointee, waiting: admission.waitingCount + connectivityWaits.count)
        guard current != reportedGauges, let factory = events?.gaugeMetrics else { return }
        reportedGauges = current
        Gauge(label: RequestTelemetry.connectionsLabel, factory: factory).record(current.connections)
        Gauge(label: RequestTelemetry.waitingLabel, factory: factory).record(current.waiting)
    }
}
