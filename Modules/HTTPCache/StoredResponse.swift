import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A response in the cache with what RFC 9111 needs to judge it: when it was requested and received
/// (for its age, §4.2.3) and the request's values of the headers its `Vary` names (§4.1).
///
/// The three travel in the `CachedURLResponse`'s `userInfo`, which Foundation's `URLCache` keeps on disk
/// too. A response stored by someone else (a `URLCache` filled by hand) lacks them: its receipt time is
/// then its `Date` header, and a `Vary` it carries matches nothing, so it is revalidated or reloaded.
struct StoredResponse: Sendable {
    let response: HTTPURLResponse
    let data: Data
    let requestTime: Date
    let responseTime: Date
    /// Lowercased header name -> the request's value ("" when the request lacked it); nil when unknown.
    let varyValues: [String: String]?
    /// The trust an https response was fetched under (`CacheTrustRecord`), written with the entry.
    var trust: CacheTrustRecord?

    static let requestTimeKey = "AFNetworking.cache.requestTime"
    static let responseTimeKey = "AFNetworking.cache.responseTime"
    static let varyValuesKey = "AFNetworking.cache.varyValues"

    init(response: HTTPURLResponse, data: Data, requestTime: Date, responseTime: Date, varyValues: [String: String]?) {
        self.response = response
        self.data = data
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyValues = varyValues
    }

    /// Reads an entry of the cache (nil for a response that is not HTTP).
    init?(_ cached: CachedURLResponse) {
        guard let response = cached.response as? HTTPURLResponse else { return nil }
        let info = cached.userInfo ?? [:]
        let date = response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) ?? .distantPast
        let received = (info[Self.responseTimeKey] as? Double).map(Date.init(timeIntervalSince1970:)) ?? date
        self.init(response: response, data: cached.data,
                  requestTime: (info[Self.requestTimeKey] as? Double).map(Date.init(timeIntervalSince1970:)) ?? received,
                  responseTime: received, varyValues: info[Self.varyValuesKey] as? [String: String])
    }

    /// The entry as a session's task gets it, with itself as the cache's record.
    var answer: CachedAnswer { CachedAnswer(response: response, data: data, record: self) }

    /// The entry as the cache stores it.
    func cachedURLResponse(storagePolicy: URLCache.StoragePolicy = .allowed) -> CachedURLResponse {
        var info: [AnyHashable: Any] = [Self.requestTimeKey: requestTime.timeIntervalSince1970,
                                        Self.responseTimeKey: responseTime.timeIntervalSince1970]
        if let varyValues { info[Self.varyValuesKey] = varyValues }
        if let trust { info[CacheTrustRecord.userInfoKey] = trust.archived }
        return CachedURLResponse(response: response, data: data, userInfo: info, storagePolicy: storagePolicy)
    }

    /// The entry `cached` with this entry's timing and `Vary` values added where it lacks them (what a
    /// `willCacheResponse` hook returns is often a new `CachedURLResponse` without our `userInfo`).
    func annotating(_ cached: CachedURLResponse) -> CachedURLResponse {
        var info = cached.userInfo ?? [:]
        // The trust is always this transfer's: a hook's entry cannot carry another.
        info[CacheTrustRecord.userInfoKey] = trust?.archived
        guard info[Self.responseTimeKey] == nil else {
            return CachedURLResponse(response: cached.response, data: cached.data, userInfo: info,
                                     storagePolicy: cached.storagePolicy)
        }
        info[Self.requestTimeKey] = requestTime.timeIntervalSince1970
        info[Self.responseTimeKey] = responseTime.timeIntervalSince1970
        if let varyValues { info[Self.varyValuesKey] = varyValues }
        return CachedURLResponse(response: cached.response, data: cached.data, userInfo: info,
                                 storagePolicy: cached.storagePolicy)
    }

    // MARK: Vary (§4.1)

    /// The header names the response's `Vary` lists, lowercased; nil for `Vary: *` (matches no request).
    static func varyNames(of response: HTTPURLResponse) -> [String]? {
        guard let vary = response.value(forHTTPHeaderField: "Vary") else { return [] }
        var names: [String] = []
        for field in vary.split(separator: ",") {
            let name = field.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "*" { return nil }
            if !name.isEmpty { names.append(name) }
        }
        return names
    }

    /// What `request` sends for each header `response` varies on (nil for `Vary: *`).
    static func varyValues(of response: HTTPURLResponse, request: RequestHeaders) -> [String: String]? {
        guard let names = varyNames(of: response) else { return nil }
        var values: [String: String] = [:]
        for name in names { values[name] = normalized(request.value(name)) }
        return values
    }

    /// Whether `request` sends what the stored request sent for every header the response varies on
    /// (values compared with runs of whitespace collapsed, as §4.1 allows).
    func matchesVary(of request: RequestHeaders) -> Bool {
        guard let names = Self.varyNames(of: response) else { return false }
        if names.isEmpty { return true }
        guard let varyValues else { return false }
        return names.allSatisfy { varyValues[$0] == Self.normalized(request.value($0)) }
    }

    private static func normalized(_ value: String?) -> String {
        guard let value else { return "" }
        return value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    // MARK: Validators

    var entityTag: String? { response.value(forHTTPHeaderField: "ETag") }
    var lastModified: String? { response.value(forHTTPHeaderField: "Last-Modified") }
    var hasValidator: Bool { !conditionalHeaders.isEmpty }

    /// The headers that make a request conditional on this entry (§4.3.1).
    var conditionalHeaders: [(name: String, value: String)] {
        // A value with a control character (a tampered cache file) is not sent: it could forge a header.
        func sendable(_ value: String?) -> String? {
            value.flatMap { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? nil : $0 }
        }
        var headers: [(name: String, value: String)] = []
        if let entityTag = sendable(entityTag) { headers.append(("If-None-Match", entityTag)) }
        if let lastModified = sendable(lastModified) { headers.append(("If-Modified-Since", lastModified)) }
        return headers
    }

    // MARK: Freshening (§4.3.4, §3.2)

    /// Header fields a 304 never replaces in the stored response: its framing and the connection's own.
    private static let unreplacedFields: Set<String> = [
        "content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection", "te", "upgrade",
        "trailer", "content-encoding", "content-range",
    ]

    /// This entry brought up to date by a 304: the stored status and body with the 304's header fields
    /// replacing the stored ones, and new timings.
    func freshened(by notModified: HTTPURLResponse, requestTime: Date, responseTime: Date) -> StoredResponse {
        var fields: [String: String] = [:]
        var lowered: [String: String] = [:]  // lowercased name -> the name as stored
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String, let value = value as? String else { continue }
            fields[name] = value
            lowered[name.lowercased()] = name
        }
        for (key, value) in notModified.allHeaderFields {
            guard let name = key as? String, let value = value as? String,
                  !Self.unreplacedFields.contains(name.lowercased()) else { continue }
            if let existing = lowered[name.lowercased()] { fields[existing] = nil }
            fields[name] = value
            lowered[name.lowercased()] = name
        }
        let url = response.url ?? notModified.url!
        let updated = HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1",
                                      headerFields: fields) ?? response
        var fresh = StoredResponse(response: updated, data: data, requestTime: requestTime, responseTime: responseTime,
                                   varyValues: varyValues)
        fresh.trust = trust
        return fresh
    }
}

/// A request's header values as they go out: the request's own, else the session's additional headers.
struct RequestHeaders {
    /// The request's own fields, a repeated name once per line.
    private let fields: [(name: String, value: String)]
    private(set) var additional: [(name: String, value: String)]

    init(fields: [(name: String, value: String)], additional: [(name: String, value: String)]) {
        self.fields = fields
        self.additional = additional
    }

    init(request: URLRequest, additional: [(name: String, value: String)]) {
        self.init(fields: (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }, additional: additional)
    }

    /// The same fields, with `additional` as the session's additional headers.
    func adding(_ additional: [(name: String, value: String)]) -> RequestHeaders {
        var headers = self
        headers.additional = additional
        return headers
    }

    /// The value of the fields named `lowercasedName` (repeated lines joined with commas, as `URLRequest`
    /// joins them), else the additional header's; nil without either.
    func value(_ lowercasedName: String) -> String? {
        let own = fields.lazy.filter { $0.name.lowercased() == lowercasedName }.map(\.value)
        if !own.isEmpty { return own.joined(separator: ",") }
        return additional.first { $0.name.lowercased() == lowercasedName }?.value
    }
}
