import Foundation

/// The jar's cookies, grouped by registrable domain, and the storage rules that need what is already
/// stored: replacement, the shadowing of secure cookies, expiry and least-recently-used eviction
/// (RFC 6265bis §5.7, with Chromium's bounds). A value without locks or I/O: ``CookieJar`` guards it.
///
/// Every operation reads one domain's group (at most ``CookieJar/Limits/maximumCookiesPerDomain``
/// cookies), so its cost does not grow with the jar; only a purge of the whole jar reads everything, and
/// it runs once per `maximumCookies / 11` cookies stored.
struct CookieStore: Sendable {
    /// What storing a cookie did.
    enum Effect: Equatable, Sendable {
        /// A new cookie.
        case added
        /// It replaced a cookie with the same name, domain, host-only flag and path.
        case replaced
        /// It had expired: the cookie it names is gone (if there was one), nothing is added.
        case removed
    }

    let limits: CookieJar.Limits
    /// The cookies of each registrable domain (the host itself for addresses and public suffixes).
    private(set) var groups: [String: [StoredCookie]] = [:]
    private(set) var count = 0
    /// Advances on every store and every send: the order of last use.
    private var clock: UInt64 = 0

    init(limits: CookieJar.Limits) {
        self.limits = limits
    }

    /// Stores `cookie` in group `key`. `fromSecureOrigin`: whether it came from an https or wss URL (or
    /// the app), for the rule that an insecure origin may not touch a secure cookie.
    @discardableResult
    mutating func store(_ cookie: StoredCookie, group key: String, fromSecureOrigin: Bool, now: Date) throws(CookieRefusal) -> Effect {
        var cookie = cookie
        if !fromSecureOrigin, !cookie.isSecure, let group = groups[key] {
            // §5.7: an insecure origin may not overwrite or shadow a secure cookie of the same name whose
            // domain and path overlap the new one's.
            let shadowed = group.contains { old in
                old.isSecure && old.name == cookie.name && !old.isExpired(at: now)
                    && (StoredCookie.domainMatches(host: old.domain, domain: cookie.domain)
                        || StoredCookie.domainMatches(host: cookie.domain, domain: old.domain))
                    && StoredCookie.pathMatches(requestPath: cookie.path, cookiePath: old.path)
            }
            if shadowed { throw .shadowsSecureCookie(cookie.name) }
        }
        clock += 1
        cookie.lastAccess = clock
        cookie.creationOrder = clock
        var effect = Effect.added
        var removed = 0
        let domainBound = limits.maximumCookiesPerDomain, domainKeeps = limits.domainCountAfterPurge
        mutateGroup(key) { group in
            if let index = group.firstIndex(where: { $0.isSameCookie(as: cookie) }) {
                cookie.creation = group[index].creation
                cookie.creationOrder = group[index].creationOrder
                group.remove(at: index)
                removed += 1
                effect = .replaced
            }
            if cookie.isExpired(at: now) {
                effect = .removed
                return
            }
            group.append(cookie)
            removed -= 1
            if group.count > domainBound {
                removed += Self.purge(&group, keeping: domainKeeps, now: now)
            }
        }
        count -= removed
        if count > limits.maximumCookies { purgeAll(now: now) }
        return effect
    }

    /// The cookies of group `key` a request to `host` and `path` sends, in the order RFC 6265bis §5.8.3
    /// gives (longer paths first, then older first); marks them used and drops the expired ones it meets.
    mutating func cookies(group key: String, host: String, path: String, isSecure: Bool, now: Date) -> [StoredCookie] {
        guard groups[key] != nil else { return [] }
        clock += 1
        let tick = clock
        var found: [StoredCookie] = []
        var expired = 0
        // Changed in place (not copied out and back): a lookup must not copy its domain's cookies.
        mutateGroup(key) { group in
            for index in group.indices {
                if group[index].isExpired(at: now) { expired += 1; continue }
                if group[index].matches(host: host, path: path, isSecure: isSecure) {
                    group[index].lastAccess = tick
                    found.append(group[index])
                }
            }
            if expired > 0 { group.removeAll { $0.isExpired(at: now) } }
        }
        count -= expired
        if found.count > 1 {
            found.sort { a, b in
                let aLength = a.path.utf8.count, bLength = b.path.utf8.count
                return aLength != bLength ? aLength > bLength : a.creationOrder < b.creationOrder
            }
        }
        return found
    }

    /// Every unexpired cookie, oldest first.
    func allCookies(now: Date) -> [StoredCookie] {
        groups.values.joined().filter { !$0.isExpired(at: now) }.sorted { $0.creationOrder < $1.creationOrder }
    }

    /// Removes the cookies `shouldRemove` picks; returns how many.
    @discardableResult
    mutating func removeAll(where shouldRemove: (StoredCookie) -> Bool) -> Int {
        var removed = 0
        for key in Array(groups.keys) {
            mutateGroup(key) { group in
                let before = group.count
                group.removeAll(where: shouldRemove)
                removed += before - group.count
            }
        }
        count -= removed
        return removed
    }

    /// Runs `change` on group `key` in place (Dictionary's modify accessor: no copy of the array), then
    /// drops the group if it is empty.
    private mutating func mutateGroup(_ key: String, _ change: (inout [StoredCookie]) -> Void) {
        change(&groups[key, default: []])
        if groups[key]?.isEmpty == true { groups[key] = nil }
    }

    /// Drops `group`'s expired cookies, then its least recently used ones, until `keeping` are left;
    /// returns how many went.
    private static func purge(_ group: inout [StoredCookie], keeping: Int, now: Date) -> Int {
        let before = group.count
        group.removeAll { $0.isExpired(at: now) }
        if group.count > keeping {
            let kept = mostRecentlyUsed(group, count: keeping)
            group.removeAll { !kept.contains($0.creationOrder) }
        }
        return before - group.count
    }

    /// The creation orders (unique in a store) of the `count` most recently used of `cookies`; among
    /// cookies sent together, the newer are kept.
    private static func mostRecentlyUsed<Cookies: Sequence<StoredCookie>>(_ cookies: Cookies, count: Int) -> Set<UInt64> {
        let ranked = cookies.map { (lastAccess: $0.lastAccess, order: $0.creationOrder) }
            .sorted { $0.lastAccess != $1.lastAccess ? $0.lastAccess > $1.lastAccess : $0.order > $1.order }
        return Set(ranked.prefix(count).map(\.order))
    }

    /// Drops expired cookies everywhere, then the least recently used across all domains, until
    /// ``CookieJar/Limits/countAfterPurge`` are left.
    private mutating func purgeAll(now: Date) {
        removeAll { $0.isExpired(at: now) }
        guard count > limits.countAfterPurge else { return }
        let kept = Self.mostRecentlyUsed(groups.values.joined(), count: limits.countAfterPurge)
        removeAll { !kept.contains($0.creationOrder) }
    }
}
