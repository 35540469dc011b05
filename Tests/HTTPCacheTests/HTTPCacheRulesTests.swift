import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFHTTPCache
import AFProtocols

/// RFC 9111's rules without a server: directives, dates, freshness, age, storing, deciding, freshening.
@Suite("HTTP cache: RFC 9111's rules")
struct HTTPCacheRulesTests {
    private let url = URL(string: "http://127.0.0.1/resource?x=1")!
    /// 1994-11-06 08:49:37 GMT, RFC 9110's example date.
    private let origin = Date(timeIntervalSince1970: 784_111_777)

    private func stored(_ headers: [String: String], status: Int = 200, receivedAt: Date? = nil,
                        vary: [String: String]? = [:]) -> StoredResponse {
        let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        return StoredResponse(response: response, data: Data("body".utf8), requestTime: receivedAt ?? origin,
                              responseTime: receivedAt ?? origin, varyValues: vary)
    }

    private func request(_ headers: [String: String] = [:], additional: [(name: String, value: String)] = []) -> RequestHeaders {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return RequestHeaders(request: request, additional: additional)
    }

    private func decide(_ policy: URLRequest.CachePolicy = .useProtocolCachePolicy, _ request: RequestHeaders? = nil,
                        _ entry: StoredResponse?, after seconds: TimeInterval) -> String {
        switch CacheRules.decide(policy: policy, request: request ?? self.request(), stored: entry,
                                 now: origin.addingTimeInterval(seconds)) {
        case .answer: return "answer"
        case .revalidate: return "revalidate"
        case .load: return "load"
        case .unavailable: return "unavailable"
        }
    }

    private func decide(_ entry: StoredResponse?, after seconds: TimeInterval) -> String {
        decide(.useProtocolCachePolicy, nil, entry, after: seconds)
    }

    private var date: String { HTTPDate.format(origin) }

    // MARK: Cache-Control

    @Test func directivesAreParsedCaseInsensitivelyWithQuotedArguments() {
        let control = CacheControl(#"Max-Age="30", private, NO-CACHE, must-revalidate, x-unknown=1"#)
        #expect(control.maxAge == 30)
        #expect(control.isPrivate && control.noCache && control.mustRevalidate)
        #expect(!control.noStore && !control.isPublic)
    }

    @Test func badAndHugeArgumentsFollowTheRFC() {
        let invalid = CacheControl("max-age=soon")
        #expect(invalid.maxAge == nil && invalid.hasInvalidMaxAge)
        #expect(CacheControl("max-age=99999999999").maxAge == 1 << 31)
        #expect(CacheControl("max-stale").maxStale == Int.max)
        #expect(CacheControl("max-stale=5, min-fresh=7").maxStale == 5)
        #expect(CacheControl("max-stale=5, min-fresh=7").minFresh == 7)
        #expect(CacheControl("only-if-cached, no-store").onlyIfCached)
        #expect(CacheControl(nil) == CacheControl())
    }

    /// The value is split on its bytes: blanks and empty members are skipped, a quoted argument may hold
    /// commas and escaped quotes, and an unterminated one runs to the end of the value.
    @Test func delimitersAreFoundInTheValueBytes() {
        #expect(CacheControl("  , ,max-age = 5 ,").maxAge == 5)
        #expect(CacheControl("\tno-store\t").noStore)
        var quoted = CacheControl(#"private="a, b", max-age=7"#)
        #expect(quoted.isPrivate && quoted.maxAge == 7)
        quoted = CacheControl(#"x="a\"b, no-store", no-cache"#)
        #expect(quoted.noCache && !quoted.noStore)
        let unterminated = CacheControl(#"x="open, max-age=9"#)
        #expect(unterminated.maxAge == nil && !unterminated.hasInvalidMaxAge)
        #expect(CacheControl("=5, public").isPublic)
        #expect(CacheControl("max-age=").hasInvalidMaxAge)
        // Bytes outside ASCII never end a name or an argument.
        let accented = CacheControl("max-age=1é, nö-store, no-store")
        #expect(accented.hasInvalidMaxAge && accented.maxAge == nil && accented.noStore)
        // A combining mark after a comma does not hide the comma (it would, compared as Characters).
        let combining = CacheControl("max-age=3,\u{301}no-store")
        #expect(combining.maxAge == 3 && !combining.noStore)
    }

    // MARK: Dates

    @Test func theThreeHTTPDateFormsParse() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == origin)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == origin)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == origin)
        #expect(HTTPDate.format(origin) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func anythingElseIsNotADate() {
        for text in ["0", "-1", "yesterday", "", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT"] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test func hostileYearsAndFieldsAreInvalidNotATrap() {
        // Issue 25: Int32(year - 1900) trapped for these, killing the process on the next request.
        for text in ["Sun, 06 Nov 99999999999 08:49:37 GMT", "Sun Nov  6 08:49:37 99999999999",
                     "Sun, 06 Nov 2147485547 08:49:37 GMT", "Sun, 06 Nov 300000000 08:49:37 GMT",
                     "Sun, 06 Nov 10000 08:49:37 GMT", "Sun, 99999999999999999999 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov 1994 99999999999:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov +994 08:49:37 GMT", "Sunday, 06-Nov-9999999999999 08:49:37 GMT",
                     "Sun, 06 Nov 1600 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT"] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(HTTPDate.parse("Mon, 01 Jan 1601 00:00:00 GMT") == Date(timeIntervalSince1970: -11_644_473_600))
        // Formatting clamps to the years a date can name.
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e300)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(.distantFuture) == "Mon, 01 Jan 4001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1e300)) == "Mon, 01 Jan 1601 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .infinity)) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    @Test func aCachedResponseWithAHostileDateIsStaleNotACrash() {
        let hostile = "Sun, 06 Nov 99999999999 08:49:37 GMT"
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": hostile, "Expires": hostile])) == 0)
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": date, "Expires": hostile])) == 0)
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": hostile, "Last-Modified": hostile])) == 0)
        #expect(CacheControl("max-age=99999999999999999999999").maxAge == 1 << 31)
    }

    // MARK: Freshness and age

    @Test func freshnessLifetimeComesFromMaxAgeThenExpiresThenLastModified() {
        #expect(CacheRules.freshnessLifetime(of: stored(["Cache-Control": "max-age=100", "Expires": "0"])) == 100)
        let expires = HTTPDate.format(origin.addingTimeInterval(300))
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": date, "Expires": expires])) == 300)
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": date, "Expires": "0"])) == 0)
        #expect(CacheRules.freshnessLifetime(of: stored(["Cache-Control": "max-age=later", "Expires": expires])) == 0)
        let modified = HTTPDate.format(origin.addingTimeInterval(-1000))
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": date, "Last-Modified": modified])) == 100)
        let longAgo = HTTPDate.format(origin.addingTimeInterval(-100 * 86_400))
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": date, "Last-Modified": longAgo])) == 86_400)
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": date, "Last-Modified": modified], status: 500)) == 0)
        #expect(CacheRules.freshnessLifetime(of: stored(["Date": date])) == 0)
    }

    @Test func currentAgeAddsAgeHeaderDelayAndResidentTime() {
        // The server dated it 10 s before it arrived, said Age: 5, and the request took 1 s.
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Date": HTTPDate.format(origin.addingTimeInterval(-10)), "Age": "5"])!
        let entry = StoredResponse(response: response, data: Data(), requestTime: origin.addingTimeInterval(-1),
                                   responseTime: origin, varyValues: [:])
        // apparent age 10 beats Age + delay (6); 20 s in the cache make 30.
        #expect(CacheRules.currentAge(of: entry, now: origin.addingTimeInterval(20)) == 30)
    }

    // MARK: Storing

    @Test func onlyGETResponsesWithoutNoStoreAndWithACacheableStatusAreStored() {
        func storable(method: String = "GET", status: Int = 200, headers: [String: String] = [:],
                      request requestHeaders: [String: String] = [:]) -> Bool {
            var request = URLRequest(url: url)
            request.httpMethod = method
            for (name, value) in requestHeaders { request.setValue(value, forHTTPHeaderField: name) }
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            return CacheRules.isStorable(request: request, response: response)
        }
        #expect(storable())
        #expect(storable(status: 404))
        #expect(!storable(method: "POST"))
        #expect(!storable(method: "HEAD"))
        #expect(!storable(headers: ["Cache-Control": "no-store"]))
        #expect(!storable(request: ["Cache-Control": "no-store"]))
        #expect(!storable(status: 500))
        #expect(storable(status: 500, headers: ["Cache-Control": "max-age=10"]))
        #expect(!storable(status: 206, headers: ["Cache-Control": "max-age=10"]))
        #expect(!storable(headers: ["Vary": "Accept, *"]))
        #expect(storable(headers: ["Cache-Control": "private"]))  // this is a private cache (RFC 9111 §5.2.2.7)
    }

    @Test func anAuthenticatedRequestsResponseIsStoredOnlyWhenMarkedShareable() {
        let request = URLRequest(url: url)
        func storable(_ control: String) -> Bool {
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                           headerFields: ["Cache-Control": control])!
            return CacheRules.isStorable(request: request, response: response, authenticated: true)
        }
        #expect(!storable("max-age=60"))
        #expect(!storable("private, max-age=60"))
        #expect(storable("public, max-age=60"))
        #expect(storable("s-maxage=60"))
        #expect(storable("max-age=60, must-revalidate"))
        // The Authorization header (the request's or the session's) or credentials in the URL count.
        let cache = ResponseCache(storage: URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil),
                                  sessionPolicy: .useProtocolCachePolicy,
                                  additionalHeaders: [("Authorization", "Bearer session")])
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: ["Cache-Control": "max-age=60"])!
        #expect(cache.entry(for: request, response: response, data: Data(), requestTime: origin, responseTime: origin) == nil)
        let open = ResponseCache(storage: URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil),
                                 sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        #expect(open.entry(for: request, response: response, data: Data(), requestTime: origin, responseTime: origin) != nil)
        #expect(open.entry(for: request, response: response, data: Data(), requestTime: origin, responseTime: origin,
                           usedCredential: true) == nil)
        let withUser = URLRequest(url: URL(string: "http://user:pw@127.0.0.1/resource")!)
        #expect(open.entry(for: withUser, response: response, data: Data(), requestTime: origin, responseTime: origin) == nil)
    }

    @Test func unsafeMethodsThatSucceedInvalidate() {
        #expect(CacheRules.invalidates(method: "POST", statusCode: 201))
        #expect(CacheRules.invalidates(method: "delete", statusCode: 204))
        #expect(CacheRules.invalidates(method: "PUT", statusCode: 303))
        #expect(!CacheRules.invalidates(method: "POST", statusCode: 500))
        #expect(!CacheRules.invalidates(method: "GET", statusCode: 200))
        // Safe methods in any case never invalidate; the status range is 200-399.
        #expect(!CacheRules.invalidates(method: "head", statusCode: 200))
        #expect(!CacheRules.invalidates(method: "Options", statusCode: 204))
        #expect(!CacheRules.invalidates(method: "trace", statusCode: 301))
        #expect(CacheRules.invalidates(method: "PATCH", statusCode: 399))
        #expect(!CacheRules.invalidates(method: "PATCH", statusCode: 400))
        #expect(!CacheRules.invalidates(method: "DELETE", statusCode: 199))
    }

    // MARK: Deciding

    @Test func protocolPolicyAnswersFreshRevalidatesStaleWithValidatorsAndLoadsTheRest() {
        let fresh = stored(["Date": date, "Cache-Control": "max-age=60", "ETag": "\"a\""])
        #expect(decide(fresh, after: 59) == "answer")
        #expect(decide(fresh, after: 60) == "revalidate")
        #expect(decide(stored(["Date": date, "Cache-Control": "max-age=60"]), after: 61) == "load")
        #expect(decide(stored(["Date": date, "Last-Modified": date]), after: 1) == "revalidate")
        #expect(decide(nil, after: 0) == "load")
    }

    @Test func noCacheOnEitherSideRevalidatesEvenWhenFresh() {
        #expect(decide(stored(["Date": date, "Cache-Control": "max-age=60, no-cache", "ETag": "\"a\""]), after: 1) == "revalidate")
        let fresh = stored(["Date": date, "Cache-Control": "max-age=60", "ETag": "\"a\""])
        #expect(decide(.useProtocolCachePolicy, request(["Cache-Control": "no-cache"]), fresh, after: 1) == "revalidate")
        #expect(decide(.useProtocolCachePolicy, request(["Pragma": "no-cache"]), fresh, after: 1) == "revalidate")
    }

    @Test func requestDirectivesNarrowOrWidenFreshness() {
        let entry = stored(["Date": date, "Cache-Control": "max-age=60", "ETag": "\"a\""])
        #expect(decide(.useProtocolCachePolicy, request(["Cache-Control": "max-age=5"]), entry, after: 10) == "revalidate")
        #expect(decide(.useProtocolCachePolicy, request(["Cache-Control": "min-fresh=30"]), entry, after: 40) == "revalidate")
        #expect(decide(.useProtocolCachePolicy, request(["Cache-Control": "max-stale=100"]), entry, after: 150) == "answer")
        #expect(decide(.useProtocolCachePolicy, request(["Cache-Control": "max-stale=100"]), entry, after: 170) == "revalidate")
        let strict = stored(["Date": date, "Cache-Control": "max-age=60, must-revalidate", "ETag": "\"a\""])
        #expect(decide(.useProtocolCachePolicy, request(["Cache-Control": "max-stale"]), strict, after: 61) == "revalidate")
        #expect(decide(.useProtocolCachePolicy, request(["Cache-Control": "only-if-cached"]), nil, after: 0) == "unavailable")
    }

    @Test func eachCachePolicy() {
        let stale = stored(["Date": date, "Cache-Control": "max-age=1", "ETag": "\"a\""])
        let staleStrict = stored(["Date": date, "Cache-Control": "max-age=1, must-revalidate", "ETag": "\"a\""])
        let fresh = stored(["Date": date, "Cache-Control": "max-age=600", "ETag": "\"a\""])
        #expect(decide(.returnCacheDataElseLoad, nil, stale, after: 1000) == "answer")
        #expect(decide(.returnCacheDataElseLoad, nil, staleStrict, after: 1000) == "load")
        #expect(decide(.returnCacheDataElseLoad, nil, nil, after: 0) == "load")
        #expect(decide(.returnCacheDataDontLoad, nil, stale, after: 1000) == "answer")
        #expect(decide(.returnCacheDataDontLoad, nil, staleStrict, after: 1000) == "unavailable")
        #expect(decide(.returnCacheDataDontLoad, nil, nil, after: 0) == "unavailable")
        #expect(decide(.reloadIgnoringLocalCacheData, nil, fresh, after: 1) == "load")
        #expect(decide(.reloadRevalidatingCacheData, nil, fresh, after: 1) == "revalidate")
        #expect(decide(.reloadRevalidatingCacheData, nil, stored(["Cache-Control": "max-age=600"]), after: 1) == "load")
    }

    @Test func varyMatchesOnTheRequestsOwnOrTheSessionsHeaders() {
        let entry = stored(["Date": date, "Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                           vary: ["accept-language": "en"])
        #expect(decide(.useProtocolCachePolicy, request(["Accept-Language": "en"]), entry, after: 1) == "answer")
        #expect(decide(.useProtocolCachePolicy, request(["Accept-Language": "fr"]), entry, after: 1) == "load")
        #expect(decide(.useProtocolCachePolicy, request(), entry, after: 1) == "load")
        #expect(decide(.useProtocolCachePolicy, request(additional: [("Accept-Language", "en")]), entry, after: 1) == "answer")
        #expect(decide(.returnCacheDataDontLoad, request(["Accept-Language": "fr"]), entry, after: 1) == "unavailable")
        // Stored by someone else, without the request's values: it cannot be matched.
        let unknown = stored(["Date": date, "Cache-Control": "max-age=60", "Vary": "Accept-Language"], vary: nil)
        #expect(decide(.useProtocolCachePolicy, request(["Accept-Language": "en"]), unknown, after: 1) == "load")
    }

    // MARK: Revalidating

    @Test func conditionalHeadersCarryTheValidatorsButNoForgedLine() {
        let entry = stored(["ETag": "\"v1\"", "Last-Modified": date])
        #expect(entry.conditionalHeaders.map(\.name) == ["If-None-Match", "If-Modified-Since"])
        #expect(entry.conditionalHeaders.map(\.value) == ["\"v1\"", date])
        let tampered = stored(["ETag": "\"v1\"\r\nX-Injected: 1"])
        #expect(tampered.conditionalHeaders.isEmpty)
        #expect(!tampered.hasValidator)
    }

    @Test func a304ReplacesStoredFieldsButNotTheFraming() {
        let entry = stored(["ETag": "\"v1\"", "Content-Type": "text/plain", "Cache-Control": "max-age=10", "X-Old": "1",
                            "Content-Length": "4"])
        let notModified = HTTPURLResponse(url: url, statusCode: 304, httpVersion: "HTTP/1.1", headerFields: [
            "cache-control": "max-age=60", "Content-Length": "0", "X-New": "2", "ETag": "\"v1\""])!
        let later = origin.addingTimeInterval(100)
        let freshened = entry.freshened(by: notModified, requestTime: later, responseTime: later)
        #expect(freshened.response.statusCode == 200)
        #expect(freshened.response.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
        #expect(freshened.response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(freshened.response.value(forHTTPHeaderField: "Content-Length") == "4")
        #expect(freshened.response.value(forHTTPHeaderField: "X-Old") == "1")
        #expect(freshened.response.value(forHTTPHeaderField: "X-New") == "2")
        #expect(freshened.data == Data("body".utf8))
        #expect(freshened.responseTime == later)
    }

    /// The engine decides from the header lines that most answers are not stored before it builds an
    /// HTTPURLResponse: that early answer may say "maybe" too often, never "no" for a storable response.
    @Test func theEarlyStorabilityCheckNeverRefusesWhatTheFullOneStores() {
        let request = URLRequest(url: url)
        for status in [200, 203, 204, 206, 301, 302, 304, 307, 404, 405, 410, 500, 503] {
            for control in [nil, "no-store", "max-age=60", "public", "private", "no-cache", "max-age=0, no-store", "s-maxage=5"] {
                for expires in [nil, "Thu, 01 Jan 2099 00:00:00 GMT"] {
                    var fields: [String: String] = [:]
                    if let control { fields["Cache-Control"] = control }
                    if let expires { fields["Expires"] = expires }
                    let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
                    let early = CacheRules.mayBeStorable(statusCode: status, cacheControl: control, expires: expires)
                    let full = CacheRules.isStorable(request: request, response: response)
                    #expect(!full || early, "\(status) \(control ?? "-") \(expires ?? "-")")
                    #expect(early == full, "\(status) \(control ?? "-") \(expires ?? "-")")
                }
            }
        }
    }

    // MARK: The session's cache over URLCache

    @Test func anEntryAnswersOnlyTheURLItWasStoredForAndPendingWritesAreSeen() {
        let storage = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        let cache = ResponseCache(storage: storage, sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        let first = URLRequest(url: URL(string: "http://127.0.0.1/search?q=a")!)
        let entry = cache.entry(for: first, response: HTTPURLResponse(url: first.url!, statusCode: 200, httpVersion: nil,
                                                                     headerFields: ["Cache-Control": "max-age=60"])!,
                                data: Data("a".utf8), requestTime: origin, responseTime: origin)!
        cache.store(entry.cachedURLResponse(), for: first)
        // Seen at once (a write may still be waiting), and only for ?q=a: Foundation's URLCache keys
        // by host, port and path.
        #expect(cache.lookUp(first)?.data == Data("a".utf8))
        #expect(cache.lookUp(URLRequest(url: URL(string: "http://127.0.0.1/search?q=b")!)) == nil)
        #expect(cache.lookUp(first)?.requestTime == origin)
        cache.remove(first.url!)
        #expect(cache.lookUp(first) == nil)
    }

    @Test func queryVariantsAreFiledApartInFoundationsURLCache() async {
        let storage = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        let cache = ResponseCache(storage: storage, sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        for query in ["a", "b"] {
            let request = URLRequest(url: URL(string: "http://127.0.0.1:8080/search?q=\(query)")!)
            let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil,
                                           headerFields: ["Cache-Control": "max-age=60"])!
            let entry = cache.entry(for: request, response: response, data: Data(query.utf8), requestTime: origin,
                                    responseTime: origin)!
            cache.store(entry.cachedURLResponse(), for: request)
        }
        cache.waitForWrites()
        #expect(ResponseCache.storageRequest(for: URLRequest(url: URL(string: "http://127.0.0.1:8080/search?q=a")!)).url?
            .absoluteString == "http://127.0.0.1:8080/search%3Fq=a")
        #expect(ResponseCache.storageRequest(for: URLRequest(url: url)).url?.absoluteString == "http://127.0.0.1/resource%3Fx=1")
        #expect(ResponseCache.storageRequest(for: URLRequest(url: URL(string: "http://h/p")!)).url?.absoluteString == "http://h/p")
        // Both survive the writes (neither evicted the other).
        #expect(cache.lookUp(URLRequest(url: URL(string: "http://127.0.0.1:8080/search?q=a")!))?.data == Data("a".utf8))
        #expect(cache.lookUp(URLRequest(url: URL(string: "http://127.0.0.1:8080/search?q=b")!))?.data == Data("b".utf8))
    }

    @Test func aMemoryOnlyCacheDoesNotAnswerFromTheDefaultDiskDirectory() {
        // Foundation's default directory, which a memory-only URLCache (ephemeral's) still reads.
        let disk = ResponseCache(storage: URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: nil),
                                 sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        let memoryOnly = ResponseCache(storage: URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil),
                                       sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        let request = URLRequest(url: URL(string: "http://127.0.0.1:1/isolation-\(UUID().uuidString)")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil,
                                       headerFields: ["Cache-Control": "max-age=60"])!
        let entry = disk.entry(for: request, response: response, data: Data("disk".utf8), requestTime: origin,
                               responseTime: origin)!
        disk.store(entry.cachedURLResponse(), for: request)
        disk.waitForWrites()
        defer {
            disk.remove(request.url!)
            disk.waitForWrites()
        }
        #expect(disk.lookUp(request)?.data == Data("disk".utf8))
        #expect(memoryOnly.lookUp(request) == nil)
        memoryOnly.store(entry.cachedURLResponse(), for: request)
        memoryOnly.waitForWrites()
        #expect(memoryOnly.lookUp(request)?.data == Data("disk".utf8))
    }

    @Test func theRequestsOwnPolicyWinsOverTheSessions() {
        let cache = ResponseCache(storage: URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: nil),
                                  sessionPolicy: .returnCacheDataElseLoad, additionalHeaders: [])
        var request = URLRequest(url: url)
        #expect(cache.policy(for: request) == .returnCacheDataElseLoad)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        #expect(cache.policy(for: request) == .reloadIgnoringLocalCacheData)
    }
}

extension ResponseCache {
    /// A lookup by a session with the default trust settings.
    func lookUp(_ request: URLRequest) -> StoredResponse? { lookUp(request, trust: { CacheTrustTests.defaults }) }
}

/// Accepts chains whose leaf is `leaf` (a pin), for any host.
private struct LeafPin: ServerTrustEvaluating {
    let leaf: Data
    var pinningMode: SSLPinningMode { .certificate }
    func evaluate(_ serverTrust: ServerTrust, forDomain domain: String?) -> Bool {
        serverTrust.certificateChain.first == leaf
    }
}

@Suite("HTTP cache: an https entry answers only a session whose trust is the same or looser")
struct CacheTrustTests {
    static let defaults = CacheTrustRequirement(policy: nil, tlsMinimum: .tlsv12, tlsMaximum: nil, clientCertificate: nil)
    private let leaf = Data([1, 2, 3])
    private let otherLeaf = Data([9, 9])

    private func requirement(policy: (any ServerTrustEvaluating)? = nil, minimum: TLSProtocolVersion = .tlsv12,
                             maximum: TLSProtocolVersion? = nil) -> CacheTrustRequirement {
        CacheTrustRequirement(policy: policy, tlsMinimum: minimum, tlsMaximum: maximum, clientCertificate: nil)
    }

    @Test func aPinningSessionTakesOnlyAnEntryWhoseChainItsPolicyAccepts() {
        let pinned = CacheTrustRecord(policyEvaluatedChain: [leaf], tlsMinimum: .tlsv12, tlsMaximum: nil, clientCertificate: nil)
        #expect(pinned.satisfies(requirement(policy: LeafPin(leaf: leaf)), host: "h"))
        #expect(!pinned.satisfies(requirement(policy: LeafPin(leaf: otherLeaf)), host: "h"))
        // Fetched with the system CAs: no chain for a policy to judge.
        #expect(!CacheTrustRecord.unrecorded.satisfies(requirement(policy: LeafPin(leaf: leaf)), host: "h"))
        // A session without a policy takes only what the system CAs decided (a policy may accept more).
        #expect(!pinned.satisfies(requirement(), host: "h"))
        #expect(CacheTrustRecord.unrecorded.satisfies(requirement(), host: "h"))
    }

    @Test func theTLSRangeMustLieInsideTheSessions() {
        let fetched = CacheTrustRecord(policyEvaluatedChain: nil, tlsMinimum: .tlsv12, tlsMaximum: .tlsv12, clientCertificate: nil)
        #expect(fetched.satisfies(requirement(minimum: .tlsv12), host: "h"))
        #expect(fetched.satisfies(requirement(minimum: .tlsv10, maximum: .tlsv13), host: "h"))
        #expect(!fetched.satisfies(requirement(minimum: .tlsv13), host: "h"))
        let unbounded = CacheTrustRecord(policyEvaluatedChain: nil, tlsMinimum: .tlsv12, tlsMaximum: nil, clientCertificate: nil)
        #expect(!unbounded.satisfies(requirement(maximum: .tlsv12), host: "h"))
    }

    @Test func theClientCertificateMustBeTheSessions() {
        let withCertificate = CacheTrustRecord(policyEvaluatedChain: nil, tlsMinimum: .tlsv12, tlsMaximum: nil,
                                         clientCertificate: Data("PEM".utf8))
        #expect(!withCertificate.satisfies(requirement(), host: "h"))
    }

    @Test func theRecordSurvivesArchivingAndATamperedOneAnswersNoOne() throws {
        let record = CacheTrustRecord(policyEvaluatedChain: [leaf, otherLeaf], tlsMinimum: .tlsv13, tlsMaximum: .tlsv13,
                                clientCertificate: Data("PEM".utf8))
        #expect(CacheTrustRecord(archived: record.archived) == record)
        func archived(_ list: [String: Any]) throws -> Data {
            try PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0)
        }
        #expect(CacheTrustRecord(archived: try archived(["tlsMinimum": 99])) == nil)
        #expect(CacheTrustRecord(archived: try archived(["tlsMinimum": 12, "chain": "x"])) == nil)
        #expect(CacheTrustRecord(archived: try archived(["tlsMinimum": 12, "tlsMaximum": "13"])) == nil)
        #expect(CacheTrustRecord(archived: Data("not a record".utf8)) == nil)
        #expect(CacheTrustRecord(archived: ["tlsMinimum": 12]) == nil)
    }

    /// Foundation's URLCache on Linux unarchives `userInfo` allowing no array: an entry whose record held
    /// the chain as an array crashed the process on the next lookup from disk (found by the integration
    /// suite). Stored, read back from disk by another URLCache, and judged.
    @Test func aRecordSurvivesFoundationsDiskCache() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-trust-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = URLRequest(url: URL(string: "https://127.0.0.1:1/disk-\(UUID().uuidString)")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil,
                                       headerFields: ["Cache-Control": "max-age=60"])!
        let writer = ResponseCache(storage: URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path),
                                   sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        var entry = writer.entry(for: request, response: response, data: Data("x".utf8), requestTime: Date(),
                                 responseTime: Date())!
        entry.trust = CacheTrustRecord(policyEvaluatedChain: [leaf], tlsMinimum: .tlsv12, tlsMaximum: nil, clientCertificate: nil)
        writer.store(entry.cachedURLResponse(), for: request)
        writer.waitForWrites()
        let reader = ResponseCache(storage: URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path),
                                   sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        #expect(reader.lookUp(request, trust: { requirement(policy: LeafPin(leaf: leaf)) })?.data == Data("x".utf8))
        #expect(reader.lookUp(request, trust: { requirement(policy: LeafPin(leaf: otherLeaf)) }) == nil)
    }

    @Test func anHTTPSEntryIsLookedUpUnderTheSessionsTrust() {
        let cache = ResponseCache(storage: URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil),
                                  sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        let request = URLRequest(url: URL(string: "https://127.0.0.1:1/trusted-\(UUID().uuidString)")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil,
                                       headerFields: ["Cache-Control": "max-age=60"])!
        var entry = cache.entry(for: request, response: response, data: Data("x".utf8), requestTime: Date(),
                                responseTime: Date())!
        entry.trust = CacheTrustRecord(policyEvaluatedChain: [leaf], tlsMinimum: .tlsv12, tlsMaximum: nil, clientCertificate: nil)
        cache.store(entry.cachedURLResponse(), for: request)
        #expect(cache.lookUp(request, trust: { requirement(policy: LeafPin(leaf: leaf)) })?.data == Data("x".utf8))
        #expect(cache.lookUp(request, trust: { requirement(policy: LeafPin(leaf: otherLeaf)) }) == nil)
        #expect(cache.lookUp(request) == nil)
    }
}
