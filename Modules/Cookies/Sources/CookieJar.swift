import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import AFProtocols

/// A cookie jar of this package's own: RFC 6265bis storage and matching, the public suffix list
/// (libpsl), browsers' bounds, the `__Host-` and `__Secure-` prefixes, and a private file written off
/// the request path. The umbrella module `AFNetworking` makes ``shared`` stand in for Foundation's
/// `HTTPCookieStorage.shared`, so a session on `URLSessionConfiguration.default` keeps its cookies here.
///
/// What Foundation's storage on Linux does not: a cookie for a public suffix (`Domain=co.uk` from
/// `a.example.co.uk`) is refused unless it is the host's own; storing a cookie and finding a request's
/// cookies read only the request's registrable domain, so they cost the same in a jar of ten cookies or
/// 3,300 (Foundation rewrites its whole file for every cookie stored); the jar keeps ``Limits``; its file
/// is 0600 in a 0700 directory (Foundation's is 0644, readable by every local user).
///
/// The shape of `HTTPCookieStorage`'s API, in Foundation's currency (`HTTPCookie`), for code that reads
/// or seeds cookies; the engine uses the `CookieStoring` methods (AFProtocols' seam).
///
/// Threading: every member is safe from any thread. Storing and looking up take one lock for a moment;
/// the file is written on a queue of the jar's own, after ``writeDelay``, one write for any number of
/// changes in between.
public final class CookieJar: CookieStoring, Sendable {
    /// The jar that stands in for `HTTPCookieStorage.shared`: in memory, and persistent cookies in
    /// ``defaultStoreURL``, read when the jar is first used, written as cookies change and when the
    /// process exits.
    public static let shared: CookieJar = {
        let jar = CookieJar(persistentStoreURL: defaultStoreURL)
        atexit { CookieJar.shared.flushIgnoringErrors() }
        return jar
    }()

    /// Where ``shared`` keeps its persistent cookies: `AFNetworking/cookies.jsonl` in a folder named after
    /// the process, in the XDG data directory (`$XDG_DATA_HOME`, else `~/.local/share`), beside the folder
    /// Foundation keeps its own cookie file in.
    public static var defaultStoreURL: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
            .appendingPathComponent("AFNetworking", isDirectory: true)
            .appendingPathComponent("cookies.jsonl", isDirectory: false)
    }

    /// The bounds this jar keeps.
    public let limits: Limits
    /// The file persistent cookies are kept in (nil: the jar keeps cookies in memory only).
    public let persistentStoreURL: URL?
    /// How long after a change the file is written (changes in between share the write). Default 500 ms.
    public let writeDelay: Duration

    struct State: Sendable {
        var store: CookieStore
        /// A persistent cookie changed since the file was last written.
        var isDirty = false
        /// A write is scheduled on ``CookieJar/writer``.
        var writeScheduled = false
    }

    let state: Protected<State>
    /// The number of cookies held, read without the lock so a request to an empty jar costs one load.
    private let storedCount = Atomic<Int>(0)
    let suffixes: PublicSuffixList
    /// Writes the file, one write at a time.
    let writer = DispatchQueue(label: "afnetworking.cookies.writer", qos: .utility)

    /// A jar with `limits` that keeps its persistent cookies in `persistentStoreURL` (default nil: in
    /// memory only), writing them `writeDelay` after a change.
    ///
    /// An existing file is read first, tolerantly: a record that is damaged, or that breaks a rule a
    /// response's cookie would have to keep (a public suffix, a prefix, a size, an expiry past the
    /// lifetime), is skipped; a file that is not a regular file of this user's (or is a link), or larger
    /// than every cookie the limits allow could fill (about 26 MB with the defaults), is not read. The jar
    /// is still made; the file is replaced at the next write.
    public init(limits: Limits = Limits(), persistentStoreURL: URL? = nil, writeDelay: Duration = .milliseconds(500)) {
        self.limits = limits
        self.persistentStoreURL = persistentStoreURL
        self.writeDelay = writeDelay
        suffixes = .system
        var store = CookieStore(limits: limits)
        if let persistentStoreURL {
            CookieFile.load(from: persistentStoreURL, limits: limits, suffixes: .system, into: &store, now: Date())
        }
        storedCount.store(store.count, ordering: .relaxed)
        state = Protected(State(store: store))
    }

    // MARK: The engine's methods (CookieStoring)

    public func cookieHeaderValue(for url: URL) -> String? {
        guard storedCount.load(ordering: .relaxed) > 0 else { return nil }
        let found = matchingCookies(for: url)
        guard !found.isEmpty else { return nil }
        return found.lazy.map(\.headerText).joined(separator: "; ")
    }

    public func storeCookies(fromSetCookieValues values: [String], responseURL url: URL) {
        guard let origin = Origin(url) else { return }
        let now = Date()
        var parsed: [StoredCookie] = []
        parsed.reserveCapacity(values.count)
        for value in values {
            if let cookie = try? makeCookie(fromSetCookieValue: value, origin: origin, now: now) { parsed.append(cookie) }
        }
        guard !parsed.isEmpty else { return }
        apply { store, now in
            for cookie in parsed {
                _ = try? store.store(cookie, group: group(of: cookie.domain), fromSecureOrigin: origin.isSecure, now: now)
            }
        }
    }

    public func cookies(for url: URL) -> [HTTPCookie] {
        matchingCookies(for: url).compactMap(\.httpCookie)
    }

    // MARK: HTTPCookieStorage's API

    /// Stores the cookie one `Set-Cookie` field value of a response from `url` sets.
    /// - Throws: ``CookieRefusal``: why the jar did not store it (the jar is then unchanged).
    public func storeCookie(fromSetCookieValue value: String, responseURL url: URL) throws(CookieRefusal) {
        guard let origin = Origin(url) else { throw .noHost }
        let cookie = try makeCookie(fromSetCookieValue: value, origin: origin, now: Date())
        try apply { store, now throws(CookieRefusal) in
            try store.store(cookie, group: group(of: cookie.domain), fromSecureOrigin: origin.isSecure, now: now)
        }
    }

    /// Every cookie the jar holds (expired ones excepted), oldest first.
    public var cookies: [HTTPCookie] {
        let now = Date()
        return state.withLock { $0.store.allCookies(now: now) }.compactMap(\.httpCookie)
    }

    /// How many cookies the jar holds (expired ones not yet dropped included).
    public var count: Int { storedCount.load(ordering: .relaxed) }

    /// Stores `cookie`, set by the app: a domain starting with `.` is a domain cookie, any other
    /// host-only. The public suffix, prefix and size rules apply; no origin rule does (the app may set a
    /// cookie for any host).
    /// - Throws: ``CookieRefusal``: why the jar did not store it.
    public func setCookie(_ cookie: HTTPCookie) throws(CookieRefusal) {
        let stored = try makeCookie(from: cookie, now: Date())
        try apply { store, now throws(CookieRefusal) in
            try store.store(stored, group: group(of: stored.domain), fromSecureOrigin: true, now: now)
        }
    }

    /// Stores those of `cookies` that a response from `url` could set (all of them when `url` is nil), as
    /// `HTTPCookieStorage.setCookies(_:for:mainDocumentURL:)`; the others are skipped.
    public func setCookies(_ cookies: [HTTPCookie], for url: URL?) {
        let origin = url.flatMap(Origin.init)
        let now = Date()
        let accepted = cookies.compactMap { cookie -> StoredCookie? in
            guard let stored = try? makeCookie(from: cookie, now: now) else { return nil }
            if let origin {
                let allowed = stored.isHostOnly ? stored.domain == origin.host
                    : StoredCookie.domainMatches(host: origin.host, domain: stored.domain)
                guard allowed, !stored.isSecure || origin.isSecure else { return nil }
            }
            return stored
        }
        apply { store, now in
            for cookie in accepted {
                _ = try? store.store(cookie, group: group(of: cookie.domain), fromSecureOrigin: origin?.isSecure ?? true, now: now)
            }
        }
    }

    /// Removes the cookie with `cookie`'s name, domain (and host-only flag) and path.
    public func deleteCookie(_ cookie: HTTPCookie) {
        guard let target = try? makeCookie(from: cookie, now: Date()) else { return }
        apply { store, _ in store.removeAll { $0.isSameCookie(as: target) } }
    }

    /// Removes the cookies stored at or after `date`.
    public func removeCookies(since date: Date) {
        apply { store, _ in store.removeAll { $0.creation >= date } }
    }

    /// Removes every cookie.
    public func removeAll() {
        apply { store, _ in store.removeAll { _ in true } }
    }

    // MARK: Internals

    /// The parts of a URL the storage rules read.
    struct Origin {
        /// Lowercase, without an IPv6 address's brackets.
        let host: String
        /// The percent-encoded path ("" when there is none).
        let path: String
        /// https or wss.
        let isSecure: Bool

        init?(_ url: URL) {
            guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self.host = host
            path = url.path(percentEncoded: true)
            let scheme = url.scheme?.lowercased()
            isSecure = scheme == "https" || scheme == "wss"
        }
    }

    /// The group a cookie for `domain`, or a request to host `domain`, is kept in: its registrable
    /// domain, or the name itself for an address or a public suffix.
    func group(of domain: String) -> String {
        StoredCookie.isAddress(domain) ? domain : (suffixes.registrableDomain(of: domain) ?? domain)
    }

    private func matchingCookies(for url: URL) -> [StoredCookie] {
        guard let origin = Origin(url) else { return [] }
        let key = group(of: origin.host)
        let now = Date()
        let requestPath = origin.path.isEmpty ? "/" : origin.path
        let (found, count) = state.withLock { state in
            let found = state.store.cookies(group: key, host: origin.host, path: requestPath, isSecure: origin.isSecure, now: now)
            return (found, state.store.count)
        }
        storedCount.store(count, ordering: .relaxed)
        return found
    }

    /// Runs `change` on the store under the lock, then notes the new count and schedules a write when a
    /// persistent cookie may have changed.
    @discardableResult
    private func apply<Result, Failure: Error>(_ change: (inout CookieStore, Date) throws(Failure) -> Result) throws(Failure) -> Result {
        let now = Date()
        let outcome: Swift.Result<(Result, Bool), Failure> = state.withLock { state in
            do throws(Failure) {
                let result = try change(&state.store, now)
                storedCount.store(state.store.count, ordering: .relaxed)
                guard persistentStoreURL != nil else { return .success((result, false)) }
                state.isDirty = true
                let schedule = !state.writeScheduled
                state.writeScheduled = true
                return .success((result, schedule))
            } catch {
                return .failure(error)
            }
        }
        let (result, schedule) = try outcome.get()
        if schedule { scheduleWrite() }
        return result
    }

    /// The cookie a `Set-Cookie` value from `origin` sets, under RFC 6265bis §5.7's rules that need no
    /// stored cookie.
    func makeCookie(fromSetCookieValue value: String, origin: Origin, now: Date) throws(CookieRefusal) -> StoredCookie {
        let parsed = try SetCookie(parsing: value, maximumNameValueSize: limits.maximumCookieSize)
        var domain = origin.host
        var isHostOnly = true
        if let attribute = parsed.domain {
            guard attribute.utf8.allSatisfy({ $0 < 0x80 }) else { throw .nonASCIIDomain }
            if suffixes.isPublicSuffix(attribute) || !suffixes.isLoaded {
                // A public suffix is no one's to set cookies for, unless it is the host itself; then the
                // cookie is the host's own (host-only).
                guard attribute == origin.host else { throw .publicSuffix(attribute) }
            } else {
                guard StoredCookie.domainMatches(host: origin.host, domain: attribute) else { throw .domainMismatch(attribute) }
                domain = attribute
                isHostOnly = false
            }
        }
        if parsed.isSecure && !origin.isSecure { throw .insecureOrigin }
        let cookie = StoredCookie(
            name: parsed.name, value: parsed.value, domain: domain,
            path: parsed.path ?? StoredCookie.defaultPath(of: origin.path),
            isHostOnly: isHostOnly, isSecure: parsed.isSecure, isHTTPOnly: parsed.isHTTPOnly, sameSite: parsed.sameSite,
            expiry: expiry(maxAge: parsed.maxAge, expires: parsed.expires, now: now), creation: now)
        do {
            try cookie.checkPrefixRules(hadDomainAttribute: parsed.domain != nil)
        } catch {
            // A prefixed name from an insecure origin breaks the prefix because the origin is insecure.
            if !origin.isSecure, StoredCookie.hasPrefix(cookie.name, "__Secure-") || StoredCookie.hasPrefix(cookie.name, "__Host-") {
                throw .insecureOrigin
            }
            throw error
        }
        return cookie
    }

    /// The cookie the app's `cookie` names, under the rules an app-set cookie keeps.
    func makeCookie(from cookie: HTTPCookie, now: Date) throws(CookieRefusal) -> StoredCookie {
        var domain = cookie.domain.lowercased()
        let isHostOnly = !domain.hasPrefix(".")
        if !isHostOnly { domain.removeFirst() }
        guard !domain.isEmpty else { throw .noHost }
        guard domain.utf8.allSatisfy({ $0 < 0x80 }) else { throw .nonASCIIDomain }
        if !isHostOnly, suffixes.isPublicSuffix(domain) || !suffixes.isLoaded { throw .publicSuffix(domain) }
        let size = cookie.name.utf8.count + cookie.value.utf8.count
        guard size <= limits.maximumCookieSize else { throw .tooLarge(size) }
        guard size > 0 else { throw .emptyNameAndValue }
        let stored = StoredCookie(
            name: cookie.name, value: cookie.value, domain: domain, path: cookie.path.isEmpty ? "/" : cookie.path,
            isHostOnly: isHostOnly, isSecure: cookie.isSecure, isHTTPOnly: cookie.isHTTPOnly,
            sameSite: nil,  // Foundation on Linux keeps no SameSite in an HTTPCookie.
            expiry: cookie.isSessionOnly ? nil : cookie.expiresDate.map { min($0, now.addingTimeInterval(limits.maximumLifetimeSeconds)) },
            creation: now)
        guard stored.hasSendableText else { throw .invalidValue }
        try stored.checkPrefixRules(hadDomainAttribute: !isHostOnly)
        return stored
    }

    /// RFC 6265bis §5.6.1-2 and §5.7: `Max-Age` wins over `Expires`; a `Max-Age` of zero or less expires
    /// the cookie now; either is cut to ``Limits/maximumLifetime``. nil: a session cookie.
    private func expiry(maxAge: Int64?, expires: Date?, now: Date) -> Date? {
        let longest = limits.maximumLifetimeSeconds
        if let maxAge {
            return maxAge <= 0 ? Date.distantPast : now.addingTimeInterval(min(Double(maxAge), longest))
        }
        return expires.map { min($0, now.addingTimeInterval(longest)) }
    }
}
