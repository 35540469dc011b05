import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RFC 9111's private HTTP cache over a session's `URLCache`, under its `requestCachePolicy` and each
/// request's `cachePolicy`: what AFCore's sessions answer from the cache, revalidate or store.
///
/// A `ResponseCaching` plugin: install it as a session's `SessionPlugins.responseCache` (the umbrella
/// module `AFNetworking` installs it in every manager it makes). It serves GET data tasks without
/// `Range` or validators of their own; freshness, `Vary`, revalidation with `ETag` and `Last-Modified`,
/// invalidation by unsafe methods; an https entry answers only a session whose trust settings would
/// accept what it was fetched under. The cache directory is made readable by this user only.
///
/// Threading: a value; the caches it makes are thread-safe (writes go to a queue of their own).
public struct HTTPCache: ResponseCaching {
    /// The cache with RFC 9111's rules.
    public init() {}

    public func sessionCache(storage: URLCache, sessionPolicy: URLRequest.CachePolicy,
                             additionalHeaders: [(name: String, value: String)]) -> any SessionResponseCache {
        URLCacheDirectory.restrict(storage)   // readable by this user only, before anything is stored
        return ResponseCache(storage: storage, sessionPolicy: sessionPolicy, additionalHeaders: additionalHeaders)
    }
}
