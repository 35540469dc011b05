import Foundation
import AFProtocols

/// The jar's file: one JSON object a line, the first naming the format, then a cookie a line, oldest
/// first. A line is read on its own, so a damaged line (or a file cut short) loses that cookie only.
///
/// The file is the jar's, but it is read as hostile input all the same: a file another program wrote
/// there must not plant a cookie a server could not have set, nor make the jar exceed its bounds.
enum CookieFile {
    /// The first line.
    static let header = #"{"format":"afnetworking-cookies","version":1}"#

    /// One cookie's line.
    struct Record: Codable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var httpOnly: Bool
        var sameSite: String?
        /// Seconds since 1970.
        var expires: Double
        /// Seconds since 1970.
        var created: Double
    }

    /// The largest file a jar with `limits` reads: every cookie at its largest, with room for its
    /// attributes and escapes.
    static func maximumSize(for limits: CookieJar.Limits) -> Int {
        let (perCookie, overflowA) = limits.maximumCookieSize.multipliedReportingOverflow(by: 6)
        let (total, overflowB) = (perCookie + 2_048).multipliedReportingOverflow(by: limits.maximumCookies)
        return overflowA || overflowB ? Int.max : total
    }

    /// The file's text for `cookies` (session cookies are not written).
    static func encode(_ cookies: [StoredCookie]) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data(header.utf8)
        data.append(0x0A)
        for cookie in cookies {
            guard let expiry = cookie.expiry else { continue }
            let record = Record(name: cookie.name, value: cookie.value, domain: cookie.domain, hostOnly: cookie.isHostOnly,
                                path: cookie.path, secure: cookie.isSecure, httpOnly: cookie.isHTTPOnly,
                                sameSite: cookie.sameSite?.rawValue, expires: expiry.timeIntervalSince1970,
                                created: cookie.creation.timeIntervalSince1970)
            guard let line = try? encoder.encode(record) else { continue }
            data.append(line)
            data.append(0x0A)
        }
        return data
    }

    /// What reading a file found.
    struct LoadReport: Equatable {
        var stored = 0
        var skipped = 0
        /// The file was not read (missing, not a regular file of this user's, a link, too large, or
        /// not this format).
        var unread = false
    }

    /// Reads the file at `url` into `store`, cookie by cookie, under the rules a response's cookie keeps.
    @discardableResult
    static func load(from url: URL, limits: CookieJar.Limits, suffixes: PublicSuffixList, into store: inout CookieStore,
                     now: Date) -> LoadReport {
        guard let data = readPrivateFile(atPath: url.path, maximumSize: maximumSize(for: limits)) else {
            return LoadReport(unread: true)
        }
        return decode(data, limits: limits, suffixes: suffixes, into: &store, now: now)
    }

    /// Reads the lines of `data` into `store`.
    static func decode(_ data: Data, limits: CookieJar.Limits, suffixes: PublicSuffixList, into store: inout CookieStore,
                       now: Date) -> LoadReport {
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
        guard let first = lines.popFirst(), first.elementsEqual(header.utf8) else { return LoadReport(unread: true) }
        var report = LoadReport()
        let decoder = JSONDecoder()
        let latest = now.addingTimeInterval(limits.maximumLifetimeSeconds)
        for line in lines {
            guard let record = try? decoder.decode(Record.self, from: Data(line)),
                  let cookie = validated(record, limits: limits, suffixes: suffixes, now: now, latest: latest) else {
                report.skipped += 1
                continue
            }
            let group = StoredCookie.isAddress(cookie.domain) ? cookie.domain
                : (suffixes.registrableDomain(of: cookie.domain) ?? cookie.domain)
            if (try? store.store(cookie, group: group, fromSecureOrigin: true, now: now)) != nil {
                report.stored += 1
            } else {
                report.skipped += 1
            }
        }
        return report
    }

    /// The cookie `record` describes, if a server could have set it and it has not expired.
    private static func validated(_ record: Record, limits: CookieJar.Limits, suffixes: PublicSuffixList, now: Date,
                                  latest: Date) -> StoredCookie? {
        guard record.expires.isFinite, record.created.isFinite else { return nil }
        let expiry = Date(timeIntervalSince1970: record.expires)
        guard expiry > now else { return nil }
        let size = record.name.utf8.count + record.value.utf8.count
        guard size > 0, size <= limits.maximumCookieSize else { return nil }
        let domain = record.domain
        guard !domain.isEmpty, domain.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
                                                        || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                                                        || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "_") }),
              !domain.hasPrefix(".") else { return nil }
        // A domain cookie needs a domain a server could have named: not a public suffix, not an address
        // or what looks like the end of one.
        let lastLabel = domain.split(separator: ".").last ?? ""
        if !record.hostOnly, suffixes.isPublicSuffix(domain) || !suffixes.isLoaded || StoredCookie.isAddress(domain)
            || lastLabel.allSatisfy(\.isNumber) {
            return nil
        }
        var sameSite: SetCookie.SameSite?
        if let text = record.sameSite {
            guard let known = SetCookie.SameSite(rawValue: text) else { return nil }
            sameSite = known
        }
        let cookie = StoredCookie(
            name: record.name, value: record.value, domain: domain, path: record.path, isHostOnly: record.hostOnly,
            isSecure: record.secure, isHTTPOnly: record.httpOnly, sameSite: sameSite, expiry: min(expiry, latest),
            creation: min(Date(timeIntervalSince1970: record.created), now))
        guard cookie.hasSendableText, (try? cookie.checkPrefixRules(hadDomainAttribute: !record.hostOnly)) != nil else { return nil }
        return cookie
    }

    /// The bytes of `path` when it is a regular file of this user's (not a link) of at most
    /// `maximumSize` bytes.
    static func readPrivateFile(atPath path: String, maximumSize: Int) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
              info.st_size >= 0, info.st_size <= maximumSize else { return nil }
        var data = Data(count: Int(info.st_size))
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = read(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
    }
}
