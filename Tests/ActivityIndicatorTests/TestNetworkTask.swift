import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A stand-in task for the notifications' object: only `originalRequest` matters to the manager.
final class TestNetworkTask: NetworkTask {
    let taskIdentifier: Int
    let originalRequest: URLRequest?
    let currentRequest: URLRequest?
    let response: URLResponse? = nil
    let error: (any Error)?
    let state: NetworkTaskState = .running

    init(identifier: Int, url: URL?, error: (any Error)? = nil) {
        taskIdentifier = identifier
        if let url {
            originalRequest = URLRequest(url: url)
        } else {
            // A request without a URL: what AF ignores.
            var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
            request.url = nil
            originalRequest = request
        }
        currentRequest = originalRequest
        self.error = error
    }

    func resume() {}
    func suspend() {}
    func cancel() {}
}
