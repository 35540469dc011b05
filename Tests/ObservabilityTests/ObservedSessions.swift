import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@_exported import LoopbackSupport

// The umbrella's managers (with the standard observer) and a data task run to completion: what the
// observability suites share.

/// What a data task's completion handler received.
struct Completion: @unchecked Sendable {
    // @unchecked Sendable: test-only value, written once by the completion handler.
    var response: HTTPURLResponse?
    var object: Any?
    var error: (any Error)?
    var urlErrorCode: Int? { (error as? URLError)?.errorCode ?? (error as NSError?)?.code }
}

/// A manager made as a user of `import AFNetworking` makes one (the standard plugins), its completions on
/// a private queue.
func makeManager(_ configure: (URLSessionConfiguration) -> Void = { _ in }) -> URLSessionManager {
    let configuration = URLSessionConfiguration.ephemeral
    configure(configuration)
    let manager = URLSessionManager(sessionConfiguration: configuration, responseSerializer: HTTPResponseSerializer())
    manager.completionQueue = DispatchQueue(label: "observability.tests.completion")
    return manager
}

/// Runs a data task to completion.
func complete(_ manager: URLSessionManager, _ request: URLRequest, body: ((SessionDataTask) -> Void)? = nil) async -> Completion {
    await withCheckedContinuation { continuation in
        let task = manager.dataTask(with: request) { response, object, error in
            continuation.resume(returning: Completion(response: response as? HTTPURLResponse, object: object, error: error))
        }
        task.resume()
        body?(task)
    }
}
