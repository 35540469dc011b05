import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as a ``SessionResponseCache`` sees it: plain values.
public struct CacheRequest: Sendable {
    /// The method as sent (uppercased).
    public let method: String
    /// The URL.
    public let url: URL
    /// The request's own cache policy (`.useProtocolCachePolicy`: the session's applies).
    public let cachePolicy: URLRequest.CachePolicy
    /// The request's own header fields, in order, a repeated name once per line (the session's
    /// additional headers are not among them).
    public let headerFields: [(name: String, value: String)]

    /// A request of `method` to `url` under `cachePolicy` with `headerFields`.
    public init(method: String, url: URL, cachePolicy: URLRequest.CachePolicy,
                headerFields: [(name: String, value: String)]) {
        self.method = method
        self.url = url
        self.cachePolicy = cachePolicy
        self.headerFields = headerFields
    }
}

/// What answers a request before the network (``SessionResponseCache/plan(for:trust:)``).
public enum CachePlan: Sendable {
    /// Answer with the stored response; the network is not touched.
    case answer(CachedAnswer)
    /// Send the request with these header fields added (its validators); a 304 is answered with the
    /// stored response, freshened.
    case revalidate(CachedAnswer, conditionalHeaderFields: [(name: String, value: String)])
    /// Fail with `URLError(.resourceUnavailable)` (-1008): the policy forbids loading and nothing usable
    /// is stored.
    case unavailable
}

/// A stored response that answers a request.
public struct CachedAnswer: Sendable {
    /// The response as the task gets it.
    public let response: HTTPURLResponse
    /// Its body.
    public let data: Data
    /// The cache's own record of the entry (handed back to it to freshen or store).
    public let record: any Sendable

    /// An answer of `response` with `data`, and the cache's `record` of it.
    public init(response: HTTPURLResponse, data: Data, record: any Sendable) {
        self.response = response
        self.data = data
        self.record = record
    }
}

/// What an exchange may do to the cache (``SessionResponseCache/effect(ofMethod:statusCode:field:)``).
public enum CacheEffect: Sendable, Equatable {
    /// Nothing: not stored, nothing invalidated (unless it answered a revalidation).
    case none
    /// An unsafe method succeeded: what is stored for its URL is stale.
    case invalidate
    /// The response may be stored: ask for a ``CacheProposal``.
    case mayStore
}

/// A response the cache would store, as the session's `willCacheResponse` hook sees it.
public struct CacheProposal: Sendable {
    /// The entry to store (what the hook is offered).
    public let cachedResponse: CachedURLResponse
    /// The cache's own record of it.
    public let record: any Sendable

    /// A proposal to store `cachedResponse`, with the cache's `record`.
    public init(cachedResponse: CachedURLResponse, record: any Sendable) {
        self.cachedResponse = cachedResponse
        self.record = record
    }
}

/// What a session requires of a handshake: an https entry answers it only if it was fetched under the
/// same or stricter terms.
public struct CacheTrustRequirement: Sendable {
    /// The session's trust evaluator (its security policy), or nil: libcurl verifies against the system CAs.
    public let policy: (any ServerTrustEvaluating)?
    /// The oldest TLS version the session's handshakes may negotiate.
    public let tlsMinimum: TLSProtocolVersion
    /// The newest, or nil: the newest libcurl and OpenSSL support.
    public let tlsMaximum: TLSProtocolVersion?
    /// The client certificate chain (PEM) the session presents, or nil.
    public let clientCertificate: Data?

    /// A requirement of `policy`, a TLS range and a client certificate.
    public init(policy: (any ServerTrustEvaluating)?, tlsMinimum: TLSProtocolVersion, tlsMaximum: TLSProtocolVersion?,
                clientCertificate: Data?) {
        self.policy = policy
        self.tlsMinimum = tlsMinimum
        self.tlsMaximum = tlsMaximum
        self.clientCertificate = clientCertificate
    }
}

/// The terms an https response was fetched under, recorded with it.
public struct CacheTrustRecord: Sendable, Equatable {
    /// The chain (DER, leaf first) the server presented, when a session policy decided the handshake;
    /// nil when libcurl verified it against the system CAs.
    public var policyEvaluatedChain: [Data]?
    /// The TLS range the handshake was allowed.
    public var tlsMinimum: TLSProtocolVersion
    /// The newest TLS version allowed, or nil: the newest libcurl and OpenSSL support.
    public var tlsMaximum: TLSProtocolVersion?
    /// The client certificate chain (PEM) presented, if any.
    public var clientCertificate: Data?

    /// A record of the handshake's terms.
    public init(policyEvaluatedChain: [Data]?, tlsMinimum: TLSProtocolVersion, tlsMaximum: TLSProtocolVersion?,
                clientCertificate: Data?) {
        self.policyEvaluatedChain = policyEvaluatedChain
        self.tlsMinimum = tlsMinimum
        self.tlsMaximum = tlsMaximum
        self.clientCertificate = clientCertificate
    }
}
