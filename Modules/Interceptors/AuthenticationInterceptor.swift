import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A credential an ``AuthenticationInterceptor`` adds to requests (an OAuth token, say).
public protocol AuthenticationCredential: Sendable {
    /// Whether the credential must be refreshed before it is used (it expires within a minute, say).
    var requiresRefresh: Bool { get }
}

/// What an ``AuthenticationInterceptor`` needs to know about a kind of credential: how to put it on a
/// request, how to refresh it, and how to tell an authentication failure.
public protocol Authenticator: Sendable {
    /// The credential type.
    associatedtype Credential: AuthenticationCredential

    /// Puts `credential` on `request` (an `Authorization` header, say).
    func apply(_ credential: Credential, to request: inout URLRequest)

    /// A fresh credential for `credential`.
    /// - Throws: when it cannot be refreshed; the requests waiting for it fail with this error.
    func refresh(_ credential: Credential) async throws -> Credential

    /// Whether `response` says `request`'s credential was refused. Default: a 401.
    func didRequest(_ request: URLRequest, with response: HTTPURLResponse) -> Bool

    /// Whether `request` carries `credential` (else another credential was refused and this one, newer,
    /// is tried without refreshing again).
    func isRequest(_ request: URLRequest, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    public func didRequest(_ request: URLRequest, with response: HTTPURLResponse) -> Bool {
        response.statusCode == 401
    }
}

/// Why an ``AuthenticationInterceptor`` failed a request.
public enum AuthenticationError: Error, Sendable, Equatable {
    /// The interceptor has no credential.
    case missingCredential
    /// More refreshes than the interceptor's ``AuthenticationInterceptor/RefreshWindow`` allows: the
    /// server keeps refusing fresh credentials.
    case excessiveRefresh
}

/// Adds a credential to every request and, when the server refuses it, refreshes it once for all the
/// requests that failed meanwhile (single flight) and sends them again (Alamofire's
/// `AuthenticationInterceptor`, with async refresh).
///
/// A credential that ``AuthenticationCredential/requiresRefresh`` is refreshed before a request goes
/// out, again once for all. A request refused with a credential older than the current one is sent
/// again without another refresh. More than ``RefreshWindow/maximumAttempts`` refreshes within
/// ``RefreshWindow/interval`` fail the request with ``AuthenticationError/excessiveRefresh``.
///
/// Threading: any thread; the credential is kept by an actor.
public final class AuthenticationInterceptor<AuthenticatorType: Authenticator>: RequestInterceptor {
    /// The credential type.
    public typealias Credential = AuthenticatorType.Credential

    /// How many refreshes may happen within how long. Default 5 within 30 s (Alamofire's).
    public struct RefreshWindow: Sendable {
        /// The window.
        public var interval: Duration
        /// The refreshes allowed within it.
        public var maximumAttempts: Int

        /// Creates a window.
        public init(interval: Duration = .seconds(30), maximumAttempts: Int = 5) {
            self.interval = interval
            self.maximumAttempts = maximumAttempts
        }
    }

    private let authenticator: AuthenticatorType
    private let store: CredentialStore

    /// Creates an interceptor using `authenticator`, starting with `credential`.
    public init(authenticator: AuthenticatorType, credential: Credential? = nil, refreshWindow: RefreshWindow = RefreshWindow()) {
        self.authenticator = authenticator
        self.store = CredentialStore(credential: credential, window: refreshWindow)
    }

    /// The current credential.
    public var credential: Credential? {
        get async { await store.credential }
    }

    /// Replaces the credential (after a sign-in, say).
    public func setCredential(_ credential: Credential?) async { await store.set(credential) }

    /// How many refreshes ran so far.
    public var refreshCount: Int {
        get async { await store.refreshes }
    }

    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        let credential = try await store.usableCredential(by: authenticator)
        var request = request
        authenticator.apply(credential, to: &request)
        return request
    }

    public func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision {
        guard let response = failure.response, authenticator.didRequest(request, with: response) else { return .doNotRetry }
        return await store.decision(afterRefusalOf: request, by: authenticator)
    }

    /// The credential and the one refresh in flight, if any.
    private actor CredentialStore {
        private(set) var credential: Credential?
        private(set) var refreshes = 0
        private var refreshing: Task<Credential, any Error>?
        private var recentRefreshes: [ContinuousClock.Instant] = []
        private let window: RefreshWindow

        init(credential: Credential?, window: RefreshWindow) {
            self.credential = credential
            self.window = window
        }

        func set(_ credential: Credential?) { self.credential = credential }

        // The two decisions below read the credential and start or join a refresh without suspending in
        // between: with a read and a refresh in separate actor calls, a refusal that arrived after another
        // request's refresh had ended saw the old credential and refreshed it a second time.

        /// The credential to send: the current one, refreshed first (once for all) when it says so.
        func usableCredential(by authenticator: AuthenticatorType) async throws -> Credential {
            guard let credential else { throw AuthenticationError.missingCredential }
            guard credential.requiresRefresh else { return credential }
            return try await refreshed(from: credential, by: authenticator)
        }

        /// What to do with `request`, which the server refused: send it again, after a refresh if it
        /// carried the current credential (a request refused with an older one has not tried the current).
        func decision(afterRefusalOf request: URLRequest, by authenticator: AuthenticatorType) async -> RetryDecision {
            guard let credential else { return .fail(AuthenticationError.missingCredential) }
            guard authenticator.isRequest(request, authenticatedWith: credential) else { return .retry }
            do {
                _ = try await refreshed(from: credential, by: authenticator)
                return .retry
            } catch {
                return .fail(error)
            }
        }

        /// A refreshed credential: the refresh in flight, or a new one started for `stale`.
        func refreshed(from stale: Credential, by authenticator: AuthenticatorType) async throws -> Credential {
            if let refreshing { return try await refreshing.value }
            let now = ContinuousClock.now
            recentRefreshes.removeAll { now - $0 > window.interval }
            guard recentRefreshes.count < window.maximumAttempts else { throw AuthenticationError.excessiveRefresh }
            recentRefreshes.append(now)
            refreshes += 1
            let task = Task { try await authenticator.refresh(stale) }
            refreshing = task
            defer { refreshing = nil }
            let fresh = try await task.value
            credential = fresh
            return fresh
        }
    }
}
