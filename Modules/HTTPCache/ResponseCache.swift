import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session's HTTP cache: RFC 9111 (``CacheRules``) over the configuration's `URLCache`, under its
/// `requestCachePolicy` and each request's `cachePolicy`.
///
/// Which requests it serves, of the data tasks the engine hands it (the managers' and the lean path's
/// `data(for:)`; streamed bodies, downloads and uploads always load): a GET without `Range` or
/// conditional headers of its own (a request that manages its own validators talks to the server).
/// Unsafe methods that succeed remove what is stored for their URL (§4.4).
///
/// Threading: lookups run on the thread that resumes a task, before the engine sees it, because
/// Foundation's `URLCache` on Linux reads its disk directory on every lookup (30 µs for a miss, ms with
/// many entries) and writes in tens of ms; a ``URLCacheIndex`` answers most misses without asking it. Writes go to a serial queue so neither the engine nor the
/// caller waits for them; a response waiting to be written already answers lookups, so a request
/// made after a completion sees what it stored. Disk writes get ``CacheDiskBudget``'s share of a core;
/// past it, and for entries that stay off disk anyway, entries are kept in the index's
/// ``CacheMemoryTier`` (Foundation's memory for a subclass). At most ``maximumPendingWrites`` responses wait: past
/// that, a response is not stored (memory stays bounded when the disk is slower than the network).
/// Invalidating the session waits for the writes before `sessionDidBecomeInvalid`.
final class ResponseCache: SessionResponseCache {
    /// How many responses may wait to be written before new ones are dropped.
    static let maximumPendingWrites = 64
    /// Where the request's URL is kept in a stored entry: an entry answers only the URL it was stored
    /// for, whatever the `URLCache` (a subclass may file entries its own way).
    static let requestURLKey = "AFNetworking.cache.requestURL"
    /// Where a memory-only `URLCache`'s entries are marked with the cache they were stored in.
    /// Foundation's `URLCache` on Linux reads its default disk directory even when its disk capacity is
    /// 0 (as `URLSessionConfiguration.ephemeral`'s is), which would let an ephemeral session see what
    /// default sessions stored: a memory-only cache answers only with entries stored in it.
    static let memoryCacheKey = "AFNetworking.cache.memoryCache"

    let storage: URLCache
    let sessionPolicy: URLRequest.CachePolicy
    private let additionalHeaders: [(name: String, value: String)]
    private let writer = DispatchQueue(label: "AFCore.cache.writer", qos: .utility)
    /// URL -> the newest entry not yet written (nil: a removal not yet done).
    private let pending = Protected<[String: PendingWrite]>([:])

    private struct PendingWrite: Sendable {
        let identifier: Int
        let entry: CachedURLResponse?
    }
    private let counter = Protected(0)

    /// This process's mark for `storage` when it keeps nothing on disk (see ``memoryCacheKey``).
    private let memoryOnlyMark: String?
    /// What `storage` may hold, so a miss does not list its directory (nil: a subclass, always asked).
    private let index: URLCacheIndex?
    /// How much of a core the writer may spend in Foundation's disk writes.
    private let diskBudget = CacheDiskBudget()

    init(storage: URLCache, sessionPolicy: URLRequest.CachePolicy, additionalHeaders: [(name: String, value: String)]) {
        self.storage = storage
        index = URLCacheIndex.index(for: storage)
        memoryOnlyMark = storage.diskCapacity == 0
            ? "\(getpid())-\(UInt(bitPattern: ObjectIdentifier(storage).hashValue))" : nil
        self.sessionPolicy = sessionPolicy
        self.additionalHeaders = additionalHeaders
    }

    /// The policy that applies to `request`: its own, unless it left the default, then the session's.
    func policy(for request: URLRequest) -> URLRequest.CachePolicy {
        request.cachePolicy == .useProtocolCachePolicy ? sessionPolicy : request.cachePolicy
    }

    /// Whether the cache serves a request of `method` (uppercased) to `url` with fields of the lowercased
    /// `fieldNames`.
    static func serves(method: String, url: URL?, fieldNames: some Sequence<String>) -> Bool {
        guard method == "GET", let scheme = url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return false
        }
        return !fieldNames.contains { ownValidatorFields.contains($0) }
    }

    /// Whether the cache serves `request`.
    static func serves(_ request: CacheRequest) -> Bool {
        serves(method: request.method, url: request.url, fieldNames: request.headerFields.lazy.map { $0.name.lowercased() })
    }

    /// Request fields that make the request manage its own validators or ranges.
    private static let ownValidatorFields: Set<String> = [
        "range", "if-none-match", "if-modified-since", "if-range", "if-match", "if-unmodified-since",
    ]

    func plan(for request: CacheRequest, trust: () -> CacheTrustRequirement) -> CachePlan? {
        guard Self.serves(request) else { return nil }
        let policy = request.cachePolicy == .useProtocolCachePolicy ? sessionPolicy : request.cachePolicy
        let headers = RequestHeaders(fields: request.headerFields, additional: additionalHeaders)
        let stored = policy == .reloadIgnoringLocalCacheData || policy == .reloadIgnoringLocalAndRemoteCacheData
            ? nil : lookUp(request.url, trust: trust)
        switch CacheRules.decide(policy: policy, request: headers, stored: stored, now: Date()) {
        case .answer(let stored): return .answer(stored.answer)
        case .revalidate(let stored): return .revalidate(stored.answer, conditionalHeaderFields: stored.conditionalHeaders)
        case .load: return nil
        case .unavailable: return .unavailable
        }
    }

    func freshen(_ answer: CachedAnswer, with notModified: HTTPURLResponse, requestTime: Date,
                 responseTime: Date) -> CachedAnswer {
        guard let stored = answer.record as? StoredResponse else { return answer }
        return stored.freshened(by: notModified, requestTime: requestTime, responseTime: responseTime).answer
    }

    func effect(ofMethod method: String, statusCode: Int, field: (String) -> String?) -> CacheEffect {
        if CacheRules.invalidates(method: method, statusCode: statusCode) { return .invalidate }
        guard method == "GET", CacheRules.mayBeStorable(statusCode: statusCode, cacheControl: field("cache-control"),
                                                        expires: field("expires")) else { return .none }
        return .mayStore
    }

    func invalidate(_ url: URL, after response: HTTPURLResponse) {
        remove(url)
        // Location and Content-Location name the resource too, when on the same origin (§4.4).
        for name in ["Location", "Content-Location"] {
            if let value = response.value(forHTTPHeaderField: name), let target = URL(string: value, relativeTo: url),
               target.scheme == url.scheme, target.host == url.host, target.port == url.port {
                remove(target.absoluteURL)
            }
        }
    }

    func proposal(for request: CacheRequest, response: HTTPURLResponse, data: Data, revalidated: CachedAnswer?,
                  requestTime: Date, responseTime: Date, usedCredential: Bool,
                  trust: CacheTrustRecord?) -> CacheProposal? {
        guard Self.serves(request) else { return nil }
        let made = (revalidated?.record as? StoredResponse)
            ?? entry(method: request.method, url: request.url,
                     headers: RequestHeaders(fields: request.headerFields, additional: []), response: response,
                     data: data, requestTime: requestTime, responseTime: responseTime, usedCredential: usedCredential)
        guard var entry = made else { return nil }
        entry.trust = trust
        return CacheProposal(cachedResponse: entry.cachedURLResponse(), record: entry)
    }

    func store(_ proposal: CacheProposal, as chosen: CachedURLResponse, for url: URL) {
        guard let entry = proposal.record as? StoredResponse else { return }
        store(entry.annotating(chosen), for: url)
    }

    /// The entry stored for exactly `request`'s URL, if the session's `trust` accepts what it was fetched under.
    func lookUp(_ request: URLRequest, trust: () -> CacheTrustRequirement) -> StoredResponse? {
        request.url.flatMap { lookUp($0, trust: trust) }
    }

    /// The entry stored for exactly `url`, if the session's `trust` accepts what it was fetched under.
    func lookUp(_ url: URL, trust: () -> CacheTrustRequirement) -> StoredResponse? {
        let key = url.absoluteString
        let cached: CachedURLResponse?
        if let waiting = pending.withLock({ $0[key] }) {
            cached = waiting.entry
        } else if let kept = index?.memory.entry(forKey: key) {
            cached = kept
        } else if index?.mayHold(url) == false {
            cached = nil
        } else {
            cached = storage.cachedResponse(for: Self.storageRequest(for: URLRequest(url: url)))
        }
        guard let cached else { return nil }
        let storedFor = cached.userInfo?[Self.requestURLKey] as? String ?? cached.response.url?.absoluteString
        guard storedFor == key else { return nil }
        if let memoryOnly = memoryOnlyMark, cached.userInfo?[Self.memoryCacheKey] as? String != memoryOnly { return nil }
        if let scheme = url.scheme?.lowercased(), scheme == "https" {
            let recorded = cached.userInfo?[CacheTrustRecord.userInfoKey].map { CacheTrustRecord(archived: $0) } ?? .unrecorded
            guard let recorded, recorded.satisfies(trust(), host: url.host ?? "") else { return nil }
        }
        return StoredResponse(cached)
    }

    /// The entry to store for `request`'s response, or nil when RFC 9111 forbids storing it.
    func entry(for request: URLRequest, response: HTTPURLResponse, data: Data, requestTime: Date,
               responseTime: Date, usedCredential: Bool = false) -> StoredResponse? {
        entry(method: (request.httpMethod ?? "GET").uppercased(), url: request.url,
              headers: RequestHeaders(request: request, additional: []), response: response, data: data,
              requestTime: requestTime, responseTime: responseTime, usedCredential: usedCredential)
    }

    /// The entry to store for a request of `method` (uppercased) to `url` with its own fields `headers`
    /// (the session's additional headers are added here), or nil when RFC 9111 forbids storing it.
    func entry(method: String, url: URL?, headers own: RequestHeaders, response: HTTPURLResponse, data: Data,
               requestTime: Date, responseTime: Date, usedCredential: Bool) -> StoredResponse? {
        let headers = own.adding(additionalHeaders)
        let authenticated = usedCredential || headers.value("authorization") != nil || url?.user != nil
        guard CacheRules.isStorable(method: method, cacheControl: own.value("cache-control"), response: response,
                                    authenticated: authenticated),
              let vary = StoredResponse.varyValues(of: response, request: headers)
        else { return nil }
        return StoredResponse(response: response, data: data, requestTime: requestTime, responseTime: responseTime,
                              varyValues: vary)
    }

    /// Stores `cached` for `request`'s URL, on the writer queue (dropped when too many writes wait).
    func store(_ cached: CachedURLResponse, for request: URLRequest) {
        if let url = request.url { store(cached, for: url) }
    }

    /// Stores `cached` for `url`, on the writer queue (dropped when too many writes wait).
    func store(_ cached: CachedURLResponse, for url: URL) {
        guard cached.storagePolicy != .notAllowed else { return }
        var info = cached.userInfo ?? [:]
        info[Self.requestURLKey] = url.absoluteString
        if let memoryOnlyMark { info[Self.memoryCacheKey] = memoryOnlyMark }
        let entry = CachedURLResponse(response: cached.response, data: cached.data, userInfo: info,
                                      storagePolicy: cached.storagePolicy)
        let slot = Self.storageRequest(for: URLRequest(url: url))
        let key = url.absoluteString
        enqueue(key: key, entry: entry) { [storage, diskBudget, index] in
            let policy = diskBudget.policy(for: entry.storagePolicy)
            let toDisk = policy == .allowed && storage.diskCapacity > 0 && URLCacheIndex.canFileOnDisk(slot)
            if let index {
                guard toDisk else {
                    index.memory.keep(entry, forKey: key, capacity: storage.memoryCapacity)
                    return
                }
                index.memory.remove(forKey: key)
                index.noteStored(slot)
            }
            if toDisk {
                diskBudget.measure { storage.storeCachedResponse(entry, for: slot) }
            } else {
                storage.storeCachedResponse(CachedURLResponse(response: entry.response, data: entry.data,
                                                              userInfo: entry.userInfo, storagePolicy: policy), for: slot)
            }
        }
    }

    /// Removes what is stored for `url` (an unsafe method changed the resource).
    func remove(_ url: URL) {
        let slot = Self.storageRequest(for: URLRequest(url: url))
        let key = url.absoluteString
        enqueue(key: key, entry: nil) { [storage, index] in
            index?.memory.remove(forKey: key)
            storage.removeCachedResponse(for: slot)
        }
    }

    /// The request an entry is filed under in `storage`: the request itself when its URL has no query;
    /// otherwise one whose path carries the query (`/search%3Fq=a`), because Foundation's `URLCache`
    /// files by host, port and path, and `/search?q=a` and `/search?q=b` would evict each other.
    static func storageRequest(for request: URLRequest) -> URLRequest {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let query = components.percentEncodedQuery else { return request }
        var filed = components
        filed.percentEncodedQuery = nil
        filed.fragment = nil
        guard let base = filed.url?.absoluteString,
              let slotURL = URL(string: base + "%3F" + query.replacingOccurrences(of: "?", with: "%3F")) else { return request }
        return URLRequest(url: slotURL)
    }

    /// Returns once every write queued so far is done (the session's invalidation waits for it).
    func waitForWrites() {
        writer.sync {}
    }

    /// Queues `write` for `key` unless too many writes wait; until it ran, lookups for `key` get `entry`.
    private func enqueue(key: String, entry: CachedURLResponse?, write: @escaping @Sendable () -> Void) {
        let identifier = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let accepted = pending.withLock { pending -> Bool in
            guard pending.count < Self.maximumPendingWrites || pending[key] != nil else { return false }
            pending[key] = PendingWrite(identifier: identifier, entry: entry)
            return true
        }
        guard accepted else { return }
        writer.async { [pending] in
            write()
            pending.withLock { pending in
                if pending[key]?.identifier == identifier { pending[key] = nil }
            }
        }
    }
}
