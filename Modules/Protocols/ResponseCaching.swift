import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes a session's HTTP cache over its configuration's `URLCache` (the seam AFHTTPCache's `HTTPCache`,
/// RFC 9111's rules, is built on).
///
/// Install one through AFCore's `SessionPlugins.responseCache` (the umbrella module `AFNetworking`
/// installs `HTTPCache`); nil, AFCore's default, means no cache: every request loads. It is read once,
/// when a session is made, as the configuration's `urlCache` is.
public protocol ResponseCaching: Sendable {
    /// The cache of a session whose configuration stores in `storage` under `sessionPolicy` and sends
    /// `additionalHeaders` with every request.
    func sessionCache(storage: URLCache, sessionPolicy: URLRequest.CachePolicy,
                      additionalHeaders: [(name: String, value: String)]) -> any SessionResponseCache
}

/// One session's HTTP cache, as its engine consults it: before a GET data task starts, when a
/// revalidation is answered with a 304, and after an exchange ends.
///
/// The engine hands it only data tasks whose bodies it holds in memory (not streamed bodies, downloads
/// or uploads); which requests of those it serves is the cache's rule.
///
/// Threading: ``plan(for:trust:)`` runs on the thread that resumes the task; the other methods on the
/// session's engine thread (never block there: queue slow writes); ``waitForWrites()`` when the
/// session is invalidated.
public protocol SessionResponseCache: Sendable {
    /// What answers `request` before the network: a stored answer, a revalidation, unavailability, or
    /// nil (load as usual). `trust` gives the session's trust settings, to be read only for an https
    /// entry (an entry must not answer a session whose handshake would refuse what it was fetched under).
    func plan(for request: CacheRequest, trust: () -> CacheTrustRequirement) -> CachePlan?

    /// `answer` brought up to date by the server's 304 (`notModified`): the answer the task gets.
    func freshen(_ answer: CachedAnswer, with notModified: HTTPURLResponse, requestTime: Date,
                 responseTime: Date) -> CachedAnswer

    /// What an exchange of `method` that ended with `statusCode` may do to the cache, read from the
    /// response head's fields (`field` takes a lowercased name) before any response object is built.
    func effect(ofMethod method: String, statusCode: Int, field: (String) -> String?) -> CacheEffect

    /// An unsafe `method`'s success changed the resource at `url` (and the ones `response` names on the
    /// same origin): forget them.
    func invalidate(_ url: URL, after response: HTTPURLResponse)

    /// What to store for `request`'s response (nil when the cache's rules forbid storing it), as the
    /// session's `willCacheResponse` hook sees it. `revalidated` is the freshened answer when the
    /// response was a 304 to a revalidation; `trust` records an https response's handshake.
    func proposal(for request: CacheRequest, response: HTTPURLResponse, data: Data, revalidated: CachedAnswer?,
                  requestTime: Date, responseTime: Date, usedCredential: Bool,
                  trust: CacheTrustRecord?) -> CacheProposal?

    /// Stores `proposal`, as the hook chose it (`chosen`: the proposal's own or another response), for `url`.
    func store(_ proposal: CacheProposal, as chosen: CachedURLResponse, for url: URL)

    /// Returns once every write queued so far is done.
    func waitForWrites()
}
