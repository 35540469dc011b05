import AFImageLoading
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// A DataTaskProviding that serves responses from memory (the downloader under test is real; this
/// stands in for AFCore's session). Tasks complete on a background queue after `resume()`, through
/// the response serializer they were given; a URL can be held until `release(_:)`; `cancel()`
/// completes with URLError(.cancelled) as a real task does.
final class InMemoryDataTaskProvider: DataTaskProviding {
    struct Route {
        var status: Int
        var contentType: String?
        var body: Data
    }

    private struct State {
        var routes: [String: Route] = [:]
        var held: Set<String> = []
        var pendingHeld: [String: [InMemoryTask]] = [:]
        var createdTasks: [InMemoryTask] = []
        var resumeOrder: [String] = []
    }
    private let state = Mutex(State())

    func serve(_ url: String, status: Int = 200, contentType: String?, body: Data) {
        state.withLock { $0.routes[url] = Route(status: status, contentType: contentType, body: body) }
    }

    /// Tasks for `url` started from now on wait for `release(url)`.
    func hold(_ url: String) { state.withLock { _ = $0.held.insert(url) } }

    func release(_ url: String) {
        let tasks = state.withLock { state in
            state.held.remove(url)
            return state.pendingHeld.removeValue(forKey: url) ?? []
        }
        for task in tasks { task.deliver() }
    }

    var createdTasks: [InMemoryTask] { state.withLock { $0.createdTasks } }
    /// URLs in the order their tasks were resumed.
    var resumeOrder: [String] { state.withLock { $0.resumeOrder } }

    func makeDataTask(with request: URLRequest, responseSerializer: any ResponseSerializing,
                      completion: @escaping @Sendable (DataTaskResult) -> Void) -> any NetworkTask {
        let task = InMemoryTask(identifier: state.withLock { $0.createdTasks.count + 1 }, request: request,
                                serializer: responseSerializer, provider: self, completion: completion)
        state.withLock { $0.createdTasks.append(task) }
        return task
    }

    fileprivate func started(_ task: InMemoryTask) {
        let url = task.originalRequest?.url?.absoluteString ?? ""
        let isHeld = state.withLock { state in
            state.resumeOrder.append(url)
            if state.held.contains(url) {
                state.pendingHeld[url, default: []].append(task)
                return true
            }
            return false
        }
        if !isHeld { task.deliver() }
    }

    fileprivate func route(for url: String) -> Route? { state.withLock { $0.routes[url] } }
}

final class InMemoryTask: NetworkTask {
    let taskIdentifier: Int
    let originalRequest: URLRequest?
    var currentRequest: URLRequest? { originalRequest }
    private let serializer: any ResponseSerializing
    private let provider: InMemoryDataTaskProvider
    private let completion: @Sendable (DataTaskResult) -> Void
    private struct State {
        var state: NetworkTaskState = .suspended
        var response: URLResponse?
        var error: (any Error)?
        var completed = false
    }
    private let mutable = Mutex(State())

    init(identifier: Int, request: URLRequest, serializer: any ResponseSerializing, provider: InMemoryDataTaskProvider,
         completion: @escaping @Sendable (DataTaskResult) -> Void) {
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.serializer = serializer
        self.provider = provider
        self.completion = completion
    }

    var response: URLResponse? { mutable.withLock { $0.response } }
    var error: (any Error)? { mutable.withLock { $0.error } }
    var state: NetworkTaskState { mutable.withLock { $0.state } }

    func resume() {
        let shouldStart = mutable.withLock { state in
            guard state.state == .suspended else { return false }
            state.state = .running
            return true
        }
        if shouldStart { provider.started(self) }
    }

    func suspend() {}

    func cancel() {
        let shouldComplete = mutable.withLock { state in
            guard !state.completed else { return false }
            state.completed = true
            state.state = .completed
            state.error = URLError(.cancelled)
            return true
        }
        guard shouldComplete else { return }
        let request = originalRequest
        DispatchQueue.global().async { [completion] in
            completion(DataTaskResult(request: request, response: nil, data: nil, object: nil, error: URLError(.cancelled)))
        }
    }

    /// Produces the response for the routed URL (404 when none) and completes.
    fileprivate func deliver() {
        let url = originalRequest?.url ?? URL(string: "http://invalid")!
        let route = provider.route(for: url.absoluteString) ?? InMemoryDataTaskProvider.Route(status: 404, contentType: "text/plain", body: Data("not found".utf8))
        var headers: [String: String] = [:]
        if let type = route.contentType { headers["Content-Type"] = type }
        let response = HTTPURLResponse(url: url, statusCode: route.status, httpVersion: "HTTP/1.1", headerFields: headers)
        let proceed = mutable.withLock { state in
            guard !state.completed else { return false }
            state.completed = true
            state.state = .completed
            state.response = response
            return true
        }
        guard proceed else { return }
        let request = originalRequest
        DispatchQueue.global().async { [serializer, completion] in
            let serialized = serializer.responseObject(for: response, data: route.body)
            completion(DataTaskResult(request: request, response: response, data: route.body,
                                      object: serialized.object, error: serialized.error))
        }
    }
}
