import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// RFC 9111's rules for a private cache, as pure functions of a request, a stored response and the
/// time: what may be stored (§3), how fresh a stored response is (§4.2), and whether a request is
/// answered from the cache, revalidated, or loaded (§4), under each `URLRequest.CachePolicy`.
enum CacheRules {
    /// What happens to a request the cache may answer.
    enum Decision {
        /// Answer with the stored response; the network is not touched.
        case answer(StoredResponse)
        /// Ask the server whether the stored response is still good (a conditional request).
        case revalidate(StoredResponse)
        /// Load from the network.
        case load
        /// `returnCacheDataDontLoad` (or `only-if-cached`) and nothing usable is stored: -1008.
        case unavailable
    }

    /// Statuses a response may be stored with without explicit freshness (§4.2.2; 206 is left out: this
    /// cache does not combine ranges).
    static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The share of the time since `Last-Modified` a response stays fresh without explicit freshness.
    static let heuristicFraction = 0.1
    /// The longest heuristic freshness given (a file untouched for years is not trusted for months).
    static let maximumHeuristicLifetime: TimeInterval = 24 * 60 * 60

    // MARK: Storing (§3)

    /// Whether the response to `request` may be stored. `authenticated`: the request carried credentials
    /// (an `Authorization` header, the session's included, or a credential the engine answered a
    /// challenge with). Such a response is stored only when the server marks it shareable (`public`,
    /// `s-maxage` or `must-revalidate`, RFC 9111 §3.5): a session may serve several users, and one's
    /// answer must not reach another's request for the same URL.
    static func isStorable(request: URLRequest, response: HTTPURLResponse, authenticated: Bool = false) -> Bool {
        isStorable(method: (request.httpMethod ?? "GET").uppercased(), cacheControl: request.value(forHTTPHeaderField: "Cache-Control"),
                   response: response, authenticated: authenticated)
    }

    /// ``isStorable(request:response:authenticated:)`` for a request of `method` (uppercased) whose own
    /// `Cache-Control` is `cacheControl`.
    static func isStorable(method: String, cacheControl: String?, response: HTTPURLResponse, authenticated: Bool) -> Bool {
        guard method == "GET" else { return false }
        let responseControl = CacheControl(response.value(forHTTPHeaderField: "Cache-Control"))
        let requestControl = CacheControl(cacheControl)
        guard !responseControl.noStore, !requestControl.noStore else { return false }
        if authenticated, !responseControl.isPublic, !responseControl.hasSharedMaxAge, !responseControl.mustRevalidate {
            return false
        }
        guard StoredResponse.varyNames(of: response) != nil else { return false }  // Vary: * never matches
        if responseControl.maxAge != nil || responseControl.isPublic
            || response.value(forHTTPHeaderField: "Expires") != nil {
            return response.statusCode >= 200 && response.statusCode != 206 && response.statusCode != 304
        }
        return heuristicallyCacheableStatuses.contains(response.statusCode)
    }

    /// Whether a GET's response with `statusCode`, `Cache-Control` and `Expires` values may be storable:
    /// false when ``isStorable(request:response:authenticated:)`` would certainly say so, decided from the
    /// header lines before an `HTTPURLResponse` is built for them. `expires` is read only when the
    /// Cache-Control value leaves the answer open (a lookup among the header lines each).
    static func mayBeStorable(statusCode: Int, cacheControl: String?, expires: @autoclosure () -> String?) -> Bool {
        let control = CacheControl(cacheControl)
        guard !control.noStore else { return false }
        if control.maxAge != nil || control.isPublic || expires() != nil {
            return statusCode >= 200 && statusCode != 206 && statusCode != 304
        }
        return heuristicallyCacheableStatuses.contains(statusCode)
    }

    /// Whether a response to `method` with `statusCode` invalidates what is stored for its URL (§4.4):
    /// an unsafe method that succeeded or redirected.
    static func invalidates(method: String, statusCode: Int) -> Bool {
        // Asked on the engine thread for every response: the status first, and the method as sent
        // (nearly always upper case) before a case-folded copy.
        guard (200..<400).contains(statusCode) else { return false }
        return !safeMethods.contains(method) && !safeMethods.contains(method.uppercased())
    }

    /// The methods §4.4 leaves out of invalidation (RFC 9110's safe methods).
    private static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    // MARK: Freshness (§4.2)

    /// How long the stored response is fresh for: `max-age`, else `Expires` minus `Date`, else 10% of
    /// the time since `Last-Modified` (at most a day) for a heuristically cacheable status, else 0.
    static func freshnessLifetime(of stored: StoredResponse) -> TimeInterval {
        let response = stored.response
        let control = CacheControl(response.value(forHTTPHeaderField: "Cache-Control"))
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        if control.hasInvalidMaxAge { return 0 }
        let date = response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) ?? stored.responseTime
        if let expires = response.value(forHTTPHeaderField: "Expires") {
            guard let expiry = HTTPDate.parse(expires) else { return 0 }  // invalid: already expired
            return max(0, expiry.timeIntervalSince(date))
        }
        guard heuristicallyCacheableStatuses.contains(response.statusCode),
              let modified = response.value(forHTTPHeaderField: "Last-Modified").flatMap(HTTPDate.parse) else { return 0 }
        return min(maximumHeuristicLifetime, max(0, date.timeIntervalSince(modified) * heuristicFraction))
    }

    /// The stored response's age now (§4.2.3).
    static func currentAge(of stored: StoredResponse, now: Date) -> TimeInterval {
        let response = stored.response
        let date = response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) ?? stored.responseTime
        let ageValue = response.value(forHTTPHeaderField: "Age").flatMap { CacheControl.deltaSeconds(Substring($0)) } ?? 0
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(date))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedInitialAge = max(apparentAge, TimeInterval(ageValue) + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return correctedInitialAge + residentTime
    }

    // MARK: Deciding (§4)

    /// What to do with `request` under `policy` given what is stored for its URL.
    static func decide(policy: URLRequest.CachePolicy, request: RequestHeaders, stored: StoredResponse?,
                       now: Date) -> Decision {
        let requestControl = CacheControl(request.value("cache-control"))
        // A stored response only counts for a request that sends what its Vary names.
        let usable = stored.flatMap { $0.matchesVary(of: request) ? $0 : nil }
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            return .load
        case .reloadRevalidatingCacheData:
            guard let usable, usable.hasValidator else { return .load }
            return .revalidate(usable)
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            // Any stored response, however old, but never a stale one that must be revalidated (§4.2.4).
            if let usable, !mustRevalidateNow(usable, now: now) { return .answer(usable) }
            return policy == .returnCacheDataDontLoad ? .unavailable : .load
        case .useProtocolCachePolicy:
            break
        @unknown default:
            return .load
        }
        let pragmaNoCache = request.value("pragma")?.lowercased().contains("no-cache") == true
        guard let usable else { return requestControl.onlyIfCached ? .unavailable : .load }
        let responseControl = CacheControl(usable.response.value(forHTTPHeaderField: "Cache-Control"))
        if !responseControl.noCache, !requestControl.noCache, !pragmaNoCache,
           isFreshEnough(usable, requestControl: requestControl, responseControl: responseControl, now: now) {
            return .answer(usable)
        }
        if requestControl.onlyIfCached { return .unavailable }
        return usable.hasValidator ? .revalidate(usable) : .load
    }

    /// Fresh for this request: within its lifetime as narrowed by the request's `max-age` and
    /// `min-fresh`, or stale by no more than the request's `max-stale` allows (never for a response that
    /// must be revalidated).
    private static func isFreshEnough(_ stored: StoredResponse, requestControl: CacheControl,
                                      responseControl: CacheControl, now: Date) -> Bool {
        let lifetime = freshnessLifetime(of: stored)
        let age = currentAge(of: stored, now: now)
        if let maxAge = requestControl.maxAge, age > TimeInterval(maxAge) { return false }
        if let minFresh = requestControl.minFresh, lifetime - age < TimeInterval(minFresh) { return false }
        if age < lifetime { return true }
        guard let maxStale = requestControl.maxStale, !responseControl.mustRevalidate else { return false }
        return maxStale == Int.max || age - lifetime <= TimeInterval(maxStale)
    }

    private static func mustRevalidateNow(_ stored: StoredResponse, now: Date) -> Bool {
        let control = CacheControl(stored.response.value(forHTTPHeaderField: "Cache-Control"))
        return control.mustRevalidate && currentAge(of: stored, now: now) >= freshnessLifetime(of: stored)
    }
}
