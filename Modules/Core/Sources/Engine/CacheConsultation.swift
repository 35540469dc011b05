import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the engine hands its cache (`SessionPlugins.responseCache`): which tasks take part, and a task's
/// request as plain values. Which requests of those the cache serves (methods, validators) is its rule.
enum CacheConsultation {
    /// Whether the cache may take part in `task`: a data task whose body the engine holds in memory (a
    /// streamed body, a download or an upload always loads).
    static func takesPart(_ task: SessionTask) -> Bool {
        task is SessionDataTask && task.leanDelivery?.stream == nil && task.bodySource == nil
    }

    /// `task`'s request as the cache sees it: the request being sent now (`current`) or the one the task
    /// was made with. An `HTTPRequest` is read as it is, without building a `URLRequest`.
    static func request(of task: SessionTask, current: Bool) -> CacheRequest? {
        if let plain = task.fieldRequest, !current || task.updateStorage({ $0.currentRequest }) == nil {
            // An HTTPRequest has the default cache policy.
            return CacheRequest(method: plain.method, url: plain.url, cachePolicy: .useProtocolCachePolicy,
                                headerFields: plain.fieldLines.lines.map { (name: $0.name, value: $0.value) })
        }
        guard let request = current ? task.currentRequest : task.originalRequest, let url = request.url else { return nil }
        return CacheRequest(method: (request.httpMethod ?? "GET").uppercased(), url: url, cachePolicy: request.cachePolicy,
                            headerFields: (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) })
    }
}

extension URLSessionManager {
    /// Asks `cache` what answers `task` before the network, on the thread that resumes it, and keeps the
    /// plan in the task for the engine.
    func consult(_ cache: any SessionResponseCache, for task: SessionTask) {
        guard CacheConsultation.takesPart(task), let request = CacheConsultation.request(of: task, current: true),
              let plan = cache.plan(for: request, trust: { cacheTrustRequirement }) else { return }
        task.updateStorage { $0.cachePlan = plan }
    }

    /// What the session requires of a handshake, which an https entry must have been fetched under.
    private var cacheTrustRequirement: CacheTrustRequirement {
        let tls = connectionSettings.tls
        return CacheTrustRequirement(policy: securityPolicy, tlsMinimum: tls.minimum, tlsMaximum: tls.maximum,
                                     clientCertificate: tls.identity?.certificateChainPEM)
    }
}
