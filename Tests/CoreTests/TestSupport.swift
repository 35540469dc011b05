import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import AFCore
import AFProtocols
@_exported import LoopbackSupport

/// What a data task's completion handler received.
struct Completion: @unchecked Sendable {
    // @unchecked Sendable: test-only value, written once by the completion handler.
    var response: HTTPURLResponse?
    var object: Any?
    var error: (any Error)?
    var urlErrorCode: Int? { (error as? URLError)?.errorCode ?? (error as NSError?)?.code }
}

/// A manager whose completions run on a private queue (the tests do not depend on the main queue).
func makeManager(plugins: SessionPlugins = .none, _ configure: (URLSessionConfiguration) -> Void = { _ in })
    -> URLSessionManager {
    let configuration = URLSessionConfiguration.ephemeral
    configure(configuration)
    let manager = URLSessionManager(sessionConfiguration: configuration, responseSerializer: HTTPResponseSerializer(),
                                    plugins: plugins)
    manager.completionQueue = DispatchQueue(label: "core.tests.completion")
    return manager
}

/// Runs a data task to completion.
func complete(_ manager: URLSessionManager, _ request: URLRequest,
              uploadProgress: (@Sendable (Progress) -> Void)? = nil,
              downloadProgress: (@Sendable (Progress) -> Void)? = nil,
              body: ((SessionDataTask) -> Void)? = nil) async -> Completion {
    await withCheckedContinuation { continuation in
        let task = manager.dataTask(with: request, uploadProgress: uploadProgress, downloadProgress: downloadProgress) {
            response, object, error in
            continuation.resume(returning: Completion(response: response as? HTTPURLResponse, object: object, error: error))
        }
        task.resume()
        body?(task)
    }
}

/// An HTTP manager on AFCore's own serializers.
func makeHTTPManager(baseURL: URL?) -> HTTPSessionManager {
    HTTPSessionManager(baseURL: baseURL, sessionConfiguration: .ephemeral,
                       requestSerializer: FormURLEncodingRequestSerializer(), responseSerializer: HTTPResponseSerializer())
}

/// `manager`'s open-connections gauge, reported to an observer of its own (a ``GaugeRecorder``): the
/// engine's count of its sockets (libcurl's open and close callbacks keep it). Tests of descriptor leaks
/// read this, not the process's descriptor count, which moves with every test running beside them.
struct ConnectionGauge {
    private let recorder = GaugeRecorder()

    init(_ manager: URLSessionManager) {
        manager.updateSettings { [recorder] in $0.plugins.observer = recorder }
    }

    /// The last value reported (nil before the first).
    var open: Int? { recorder.reports.last?.openConnections }
}

/// An observer of gauges only, written against AFProtocols alone: keeps every report.
final class GaugeRecorder: RequestObserver {
    private let recorded = Protected<[SessionGauges]>([])

    func attemptWillStart(_ attempt: ObservedAttempt) -> (any AttemptObservation)? { nil }

    func gaugesDidChange(_ gauges: SessionGauges) { recorded.withLock { $0.append(gauges) } }

    /// The reports, in order.
    var reports: [SessionGauges] { recorded.withLock { $0 } }
}
