// The jar's file: written batched, 0600 in a 0700 directory, read back exactly; a damaged or hostile file
// loses only what is wrong in it and never plants what a server could not have set.
@testable import AFCookies
import Foundation
import Testing

@Suite("Cookies: the persistent file")
struct CookieFileTests {
    /// A directory of this test's own under the run's temporary directory.
    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cookie-file-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func persistentCookiesAreWrittenPrivatelyAndReadBack() throws {
        let root = try directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("jar/inner/cookies.jsonl")
        let jar = CookieJar(persistentStoreURL: file, writeDelay: .seconds(60))
        jar.storeCookies(fromSetCookieValues: ["p=1; Max-Age=3600; Path=/a", "s=2", "d=3; Domain=example.com; Max-Age=60; Secure; HttpOnly; SameSite=Strict"],
                         responseURL: URL(string: "https://www.example.com/a/b")!)
        // Nothing is written before the delay; flush writes now.
        #expect(!FileManager.default.fileExists(atPath: file.path))
        try jar.flush()
        #expect(try mode(file.path) == 0o600)
        #expect(try mode(file.deletingLastPathComponent().path) == 0o700)
        #expect(try mode(file.deletingLastPathComponent().deletingLastPathComponent().path) == 0o700)

        let again = CookieJar(persistentStoreURL: file)
        // The session cookie is not kept; the others come back with every attribute.
        #expect(again.cookieHeaderValue(for: URL(string: "https://www.example.com/a/c")!) == "p=1; d=3")
        #expect(again.cookieHeaderValue(for: URL(string: "http://www.example.com/a/c")!) == "p=1")
        let stored = again.state.withLock { $0.store.allCookies(now: Date()) }
        let d = try #require(stored.first { $0.name == "d" })
        #expect(d.domain == "example.com" && !d.isHostOnly && d.isSecure && d.isHTTPOnly && d.sameSite == .strict)
    }

    @Test func manyChangesShareOneWrite() throws {
        let root = try directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("cookies.jsonl")
        let jar = CookieJar(persistentStoreURL: file, writeDelay: .milliseconds(200))
        for index in 0..<50 {
            jar.storeCookies(fromSetCookieValues: ["c\(index)=1; Max-Age=60"], responseURL: URL(string: "http://h.example/")!)
        }
        // One write is scheduled however many changes come before it.
        #expect(jar.state.withLock { $0.writeScheduled && $0.isDirty })
        try jar.flush()
        #expect(jar.state.withLock { !$0.isDirty })
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 51)
        #expect(lines.first.map(String.init) == CookieFile.header)
    }

    @Test func aDamagedOrHostileFileLosesOnlyWhatIsWrong() throws {
        let root = try directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("cookies.jsonl")
        let future = Date().timeIntervalSince1970 + 3_600
        func record(_ name: String, domain: String = "h.example", hostOnly: Bool = true, path: String = "/",
                    secure: Bool = false, value: String = "1", expires: Double? = nil, sameSite: String? = nil) -> String {
            let sameSiteText = sameSite.map { #","sameSite":"\#($0)""# } ?? ""
            return #"{"name":"\#(name)","value":"\#(value)","domain":"\#(domain)","hostOnly":\#(hostOnly),"path":"\#(path)","secure":\#(secure),"httpOnly":false,"expires":\#(expires ?? future),"created":0\#(sameSiteText)}"#
        }
        let lines = [
            CookieFile.header,
            record("good"),
            record("suffix", domain: "co.uk", hostOnly: false),             // a public suffix
            record("addressSuffix", domain: "0.0.1", hostOnly: false),      // a suffix of an address
            record("expired", expires: 5),
            record("host", path: "/x", secure: true).replacingOccurrences(of: #""name":"host""#, with: #""name":"__Host-x""#),
            record("injected", value: #"1\r\nX-Evil: 1"#),                // a line break in a value
            record("semicolon", value: "1; Domain=evil.com"),
            record("upper", domain: "H.EXAMPLE"),
            record("big", value: String(repeating: "v", count: 5_000)),
            record("badSameSite", sameSite: "Sideways"),
            record("relative", path: "x"),
            #"{"name":"truncated","val"#,
            "not json at all",
            record("nan").replacingOccurrences(of: "\(future)", with: "1e400"),
            record("good2", domain: "example.com", hostOnly: false, expires: future + 9e12),  // past 400 days
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        var store = CookieStore(limits: .init())
        let report = CookieFile.load(from: file, limits: .init(), suffixes: .system, into: &store, now: Date())
        #expect(report == CookieFile.LoadReport(stored: 2, skipped: 13, unread: false))
        let kept = store.allCookies(now: Date())
        #expect(kept.map(\.name) == ["good", "good2"])
        let good2 = try #require(kept.last?.expiry)
        #expect(good2 <= Date().addingTimeInterval(400 * 86_400))
    }

    @Test func aFileTheJarMustNotTrustIsNotRead() throws {
        let root = try directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let real = root.appendingPathComponent("real.jsonl")
        let line = #"{"name":"a","value":"1","domain":"h.example","hostOnly":true,"path":"/","secure":false,"httpOnly":false,"expires":\#(Date().timeIntervalSince1970 + 60),"created":0}"#
        try Data((CookieFile.header + "\n" + line + "\n").utf8).write(to: real)
        #expect(CookieJar(persistentStoreURL: real).count == 1)
        // A link is not followed.
        let link = root.appendingPathComponent("link.jsonl")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        #expect(CookieJar(persistentStoreURL: link).count == 0)
        // Another format, or none, is not read.
        let other = root.appendingPathComponent("other.jsonl")
        try Data(("{\"format\":\"else\"}\n" + line).utf8).write(to: other)
        #expect(CookieJar(persistentStoreURL: other).count == 0)
        // A file past the bound for the jar's limits is not read at all.
        let limits = CookieJar.Limits(maximumCookies: 1, maximumCookieSize: 10)
        let large = root.appendingPathComponent("large.jsonl")
        try Data((CookieFile.header + "\n" + line + "\n" + String(repeating: " ", count: CookieFile.maximumSize(for: limits))).utf8).write(to: large)
        #expect(CookieJar(limits: limits, persistentStoreURL: large).count == 0)
        #expect(CookieJar(limits: limits, persistentStoreURL: real).count == 1)
    }

    @Test func aFileOfThousandsStaysWithinTheBounds() throws {
        let root = try directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("cookies.jsonl")
        let expires = Date().timeIntervalSince1970 + 3_600
        var text = CookieFile.header + "\n"
        for index in 0..<5_000 {
            text += #"{"name":"c\#(index)","value":"1","domain":"h.example","hostOnly":true,"path":"/","secure":false,"httpOnly":false,"expires":\#(expires),"created":\#(index)}"# + "\n"
        }
        try Data(text.utf8).write(to: file)
        let jar = CookieJar(persistentStoreURL: file)
        // As if a server had set them in order: 150 + (5,000 - 181) % 31 = 164, the newest.
        #expect(jar.count == 164)
        #expect(jar.cookies.first?.name == "c4836")
    }

    @Test func theSharedJarLivesInTheDataDirectory() {
        let path = CookieJar.defaultStoreURL.path
        #expect(path.hasSuffix("/\(ProcessInfo.processInfo.processName)/AFNetworking/cookies.jsonl"))
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            #expect(path.hasPrefix(data))
        }
    }
}
