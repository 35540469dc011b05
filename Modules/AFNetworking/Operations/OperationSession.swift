import AFCore
import AFProtocols
import AFStandardPlugins
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session ``HTTPRequestOperation``s run their transfers on: one ``URLSessionManager`` (one engine
/// thread, one connection pool) whose hooks hand each task's events to the operation that owns the task.
///
/// An ``HTTPRequestOperationManager`` keeps one for all the operations it makes, so they reuse
/// connections; an operation made on its own, or whose trust policy or credential-storage choice no
/// longer matches its manager's, gets a session of its own, closed when it finishes.
///
/// Threading: every member is safe from any thread; the routing table is behind its lock.
final class OperationSession: Sendable {
    /// What the session was made with: an operation may use it only when its own options agree.
    struct Terms: Sendable {
        let securityPolicy: (any ServerTrustEvaluating)?
        let usesCredentialStorage: Bool
        /// Whether redirects stop for a redirect closure. Only then does the engine follow them itself
        /// (which hands the redirect response to the session's hooks), so operations without one share
        /// a session where libcurl follows.
        var decidesRedirects = false

        /// Whether an operation with `policy`, `usesCredentialStorage` and (when `decidesRedirects`) a
        /// redirect closure may share these terms. Policies are compared by value when they are
        /// `Hashable` (``SecurityPolicy`` is), else by identity; a policy that is neither never matches,
        /// so it never shares another's connections.
        func admit(_ policy: (any ServerTrustEvaluating)?, usesCredentialStorage: Bool,
                   decidesRedirects: Bool = false) -> Bool {
            guard usesCredentialStorage == self.usesCredentialStorage,
                  decidesRedirects == self.decidesRedirects else { return false }
            switch (securityPolicy, policy) {
            case (nil, nil): return true
            case let (mine?, theirs?):
                if let mine = mine as? AnyHashable, let theirs = theirs as? AnyHashable { return mine == theirs }
                if type(of: mine) is AnyClass, type(of: theirs) is AnyClass {
                    return (mine as AnyObject) === (theirs as AnyObject)
                }
                return false
            default: return false
            }
        }
    }

    /// A task's owner, held weakly: a released operation's late events go nowhere.
    private struct Owner {
        weak var operation: HTTPRequestOperation?
    }

    let manager: URLSessionManager
    let terms: Terms
    /// The configuration the session was made from (nil: the default), to tell whether a manager's later
    /// settings still fit.
    private let configuration: URLSessionConfiguration.Snapshot?
    private let owners = Protected<[ObjectIdentifier: Owner]>([:])

    /// A session on `configuration` (nil: `URLSessionConfiguration.default`) with `terms`.
    init(configuration: URLSessionConfiguration.Snapshot?, terms: Terms) {
        self.configuration = configuration
        self.terms = terms
        let sessionConfiguration = configuration?.make() ?? .default
        if !terms.usesCredentialStorage { sessionConfiguration.urlCredentialStorage = nil }
        manager = URLSessionManager(sessionConfiguration: sessionConfiguration, responseSerializer: UnvalidatedBody(),
                                    plugins: .standard)
        // Operations serialize lazily from their own output, so the engine keeps no copy of the body.
        manager.discardsReceivedBody = true
        try? manager.setSecurityPolicy(terms.securityPolicy)
        manager.hooks = makeHooks()
    }

    /// Whether the session was made from this copy of a configuration (nil: the default).
    func wasMade(from configuration: URLSessionConfiguration.Snapshot?) -> Bool {
        switch (self.configuration, configuration) {
        case (nil, nil): true
        case let (mine?, theirs?): mine.isSameCopy(as: theirs)
        default: false
        }
    }

    deinit {
        // Tasks still running belong to operations that keep this session alive, so none is left here.
        manager.invalidateSession(cancelingTasks: false)
    }

    /// Makes a suspended task for `operation`, routing its events there; `completion` runs on `queue`.
    func makeTask(for operation: HTTPRequestOperation, request: URLRequest, body: (any BodySource)?,
                  queue: DispatchQueue,
                  completion: @escaping @Sendable (SessionTask, URLResponse?, (any Error)?) -> Void) -> SessionDataTask {
        let task = manager.makeDataTask(request, source: body, uploadProgress: nil, downloadProgress: nil,
                                        completion: .taskData { [weak self] task, response, _, error in
                                            self?.forget(task)
                                            completion(task, response, error)
                                        }, completionQueue: queue)
        owners.withLock { $0[ObjectIdentifier(task)] = Owner(operation: operation) }
        return task
    }

    private func owner(of task: SessionTask) -> HTTPRequestOperation? {
        owners.withLock { $0[ObjectIdentifier(task)]?.operation }
    }

    private func forget(_ task: SessionTask) {
        owners.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// The hooks of the shared manager; each finds the task's operation (engine thread).
    private func makeHooks() -> SessionManagerHooks {
        var hooks = SessionManagerHooks()
        hooks.dataTaskDidReceiveResponse = { [weak self] task, response in
            self?.owner(of: task)?.transfer(task, didReceive: response) ?? .cancel
        }
        hooks.dataTaskDidReceiveData = { [weak self] task, data in
            self?.owner(of: task)?.transfer(task, didReceive: data)
        }
        hooks.taskDidSendBodyData = { [weak self] task, sent, totalSent, expected in
            self?.owner(of: task)?.transfer(task, didSend: sent, totalSent: totalSent, expected: expected)
        }
        if terms.decidesRedirects {
            hooks.taskWillPerformHTTPRedirection = { [weak self] task, response, newRequest in
                guard let operation = self?.owner(of: task) else { return nil }
                return operation.redirect(newRequest, after: response)
            }
        }
        hooks.authenticationChallengeHandler = { [weak self] task, challenge in
            guard let operation = self?.owner(of: task) else { return (.cancelAuthenticationChallenge, nil) }
            return operation.answer(challenge)
        }
        return hooks
    }
}

/// The engine-side serializer of an operation session: operations serialize lazily themselves.
private struct UnvalidatedBody: ResponseSerializing {
    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse { SerializedResponse() }
}
