import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the session consults its plugins (``Settings/plugins``) before a task starts.
extension URLSessionManager {
    /// The session's observer (``Settings/plugins``), in one read.
    var observer: (any RequestObserver)? { state.withLock { $0.settings.plugins.observer } }

    /// The session's local responder (``Settings/plugins``), in one read.
    var localResponder: (any LocalResponder)? { state.withLock { $0.settings.plugins.localResponder } }

    /// Decides, on the thread that resumes `task`, what answers it besides the network: the session's
    /// local responder (`SessionPlugins.localResponder`), else the cache. A streamed lean body always
    /// goes to the network.
    func prepareToStart(_ task: SessionTask) {
        let plugins = state.withLock { $0.settings.plugins }
        if let observer = plugins.observer { beginObservation(of: task, by: observer) }
        if let responder = plugins.localResponder, task.leanDelivery?.stream == nil,
           responder.mayAnswer(protocolClasses: configurationTemplate.protocolClasses), let request = task.currentRequest,
           let load = responder.load(for: request, protocolClasses: configurationTemplate.protocolClasses) {
            task.updateStorage { $0.localLoad = load }
            return
        }
        if let cache = configurationTemplate.cache { consult(cache, for: task) }
    }
}
