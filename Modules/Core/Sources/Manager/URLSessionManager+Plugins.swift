import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Where the session consults its plugins (``Settings/plugins``) before a task starts.
extension URLSessionManager {
    /// The cookie jar this session sends cookies from and stores them in: the configuration's
    /// `httpCookieStorage`, or, where that is Foundation's shared storage and the plugins name a
    /// `SessionPlugins.cookieStorage` (the umbrella's: AFCookies' `CookieJar.shared`), that jar.
    /// nil when the configuration keeps no cookies.
    ///
    /// With a Foundation storage, a task's Cookie header is read on the thread that resumes it, and read
    /// again when its transfer starts only if the session stored a cookie in between (a response's, or
    /// one stored through this jar): a cookie put into the `HTTPCookieStorage` directly after `resume()`
    /// may miss that task, as it may with URLSession.
    public var cookieStorage: (any CookieStoring)? { configurationTemplate.cookies.jar }

    /// The session's observer (``Settings/plugins``), in one read; no lock when none is installed.
    var observer: (any RequestObserver)? {
        consultsTaskPlugins.load(ordering: .acquiring) ? state.withLock { $0.settings.plugins.observer } : nil
    }

    /// The session's local responder (``Settings/plugins``), in one read; no lock when none is installed.
    var localResponder: (any LocalResponder)? {
        consultsTaskPlugins.load(ordering: .acquiring) ? state.withLock { $0.settings.plugins.localResponder } : nil
    }

    /// Whether a lean call's task may be confined (``SessionTask/isConfined``): unless the session's local
    /// responder may answer it (a local load reports from threads of its own). An observer sees a
    /// confined task's attempt through values, never the task.
    func confinesLeanTask() -> Bool {
        guard let responder = localResponder else { return true }
        return !responder.mayAnswer(protocolClasses: configurationTemplate.protocolClasses)
    }

    /// Keeps ``consultsTaskPlugins`` and ``busyPolling`` in step with `settings` (called under the lock,
    /// after each change).
    func noteSettings(of settings: Settings) {
        let installed = settings.plugins.observer != nil || settings.plugins.localResponder != nil
        consultsTaskPlugins.store(installed, ordering: .releasing)
        busyPolling.setWindow(settings.busyPollDuration)
    }

    /// Decides, on the thread that resumes `task`, what answers it besides the network: the session's
    /// local responder (`SessionPlugins.localResponder`), else the cache. A streamed lean body always
    /// goes to the network. Also reads, here rather than on the engine thread, the host the task counts
    /// against (``AdmissionTarget``, about 1,100 instructions) and its Cookie header.
    func prepareToStart(_ task: SessionTask) {
        // Without an observer or a responder this is one atomic load: no lock, no dynamic cast.
        if consultsTaskPlugins.load(ordering: .acquiring) {
            let plugins = state.withLock { $0.settings.plugins }
            if let observer = plugins.observer { beginObservation(of: task, by: observer) }
            // A confined task was made when no responder could answer it (`confinesLeanTask()`).
            if !task.isConfined, let responder = plugins.localResponder, task.leanDelivery?.stream == nil,
               responder.mayAnswer(protocolClasses: configurationTemplate.protocolClasses), let request = task.currentRequest,
               let load = responder.load(for: request, protocolClasses: configurationTemplate.protocolClasses) {
                task.updateStorage { $0.localLoad = load }
                return
            }
        }
        if let url = task.requestURL, let target = AdmissionTarget(url: url, settings: configurationTemplate) {
            task.updateStorage { $0.preparedAdmission = target }
        }
        if let cache = configurationTemplate.cache {
            consult(cache, for: task)
        } else {
            prepareCookies(for: task)
        }
    }

    /// Looks up the Cookie header of `task`'s first attempt here, off the engine thread, when the session
    /// sends a Foundation storage's cookies (the engine uses it unless a store came between).
    private func prepareCookies(for task: SessionTask) {
        let cookies = configurationTemplate.cookies
        guard let jar = cookies.foundationJar, cookies.sendsStoredCookies, let url = task.originalURL else { return }
        // An HTTPRequest always handles cookies; a URLRequest says (read without building one).
        if task.fieldRequest == nil, task.originalRequest?.httpShouldHandleCookies == false { return }
        let prepared = jar.preparedHeader(for: url)
        task.updateStorage { $0.preparedCookies = prepared }
    }
}
