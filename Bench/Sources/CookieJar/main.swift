import AFNetworking
import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The cookie jar (issue 42): storing the cookies of one response with N persistent Set-Cookie lines, and
// finding a request's cookies, in AFCookies' CookieJar and in Foundation's HTTPCookieStorage (the shared
// one, as URLSessionConfiguration.default uses it). Foundation's rows run in child processes (this binary
// re-executed) with an XDG data directory of their own under .build, so its file starts empty and no
// user's file is touched; its 1,000-cookie row is left out (it did not finish in 60 s).

let root = ProcessInfo.processInfo.environment["AF_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath
let responseURL = URL(string: "http://www.example.com/account/login")!

func setCookieLines(_ count: Int) -> [String] {
    (0..<count).map { "c\($0)=\($0); Max-Age=86400; Path=/" }
}

/// Seconds to store one response's `count` cookies in Foundation's shared storage (in this child process).
func foundationStore(_ count: Int) -> Double {
    let lines = setCookieLines(count)
    return measureSeconds {
        var cookies: [HTTPCookie] = []
        for line in lines {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: responseURL)
        }
        HTTPCookieStorage.shared.setCookies(cookies, for: responseURL, mainDocumentURL: nil)
    }
}

/// Runs `arguments` as a child of this binary with a fresh XDG data directory; returns what it printed.
func child(_ arguments: [String]) throws -> String {
    let data = root + "/.build/cookie-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: data) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_DATA_HOME"] = data
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "foundation-store", let count = Int(CommandLine.arguments[2]) {
    print(foundationStore(count))
    exit(0)
}

var rows: [BenchRow] = []
let store = URL(fileURLWithPath: root + "/.build/cookie-bench-jar/cookies.jsonl")

for count in [100, 300, 1_000, 10_000] {
    let lines = setCookieLines(count)
    var best = Double.infinity
    for _ in 0..<5 {
        try? FileManager.default.removeItem(at: store.deletingLastPathComponent())
        let jar = CookieJar(persistentStoreURL: store, writeDelay: .seconds(3_600))
        // The engine's call for one response, then the file written (which the jar does off the request path).
        let seconds = measureSeconds {
            jar.storeCookies(fromSetCookieValues: lines, responseURL: responseURL)
            try? jar.flush()
        }
        best = min(best, seconds)
    }
    let workload = "one response of \(count) Set-Cookie lines"
    rows.append(BenchRow(workload: workload, implementation: "ours (CookieJar, file included)", value: Double(count) / best,
                         unit: "cookies/s", note: String(format: "%.2f ms", best * 1_000)))
    if count <= 300, let seconds = Double((try? child(["foundation-store", "\(count)"])) ?? "") {
        rows.append(BenchRow(workload: workload, implementation: "Foundation HTTPCookieStorage.shared", value: Double(count) / seconds,
                             unit: "cookies/s", note: String(format: "%.2f ms", seconds * 1_000)))
    }
}
try? FileManager.default.removeItem(at: store.deletingLastPathComponent())

// Finding a request's cookies: ten for the request's site, in a jar of ten and in a full jar (3,300).
for others in [0, 3_290] {
    let jar = CookieJar()
    jar.storeCookies(fromSetCookieValues: (0..<10).map { "s\($0)=1" }, responseURL: responseURL)
    for site in 0..<(others / 10) {
        jar.storeCookies(fromSetCookieValues: (0..<10).map { "o\($0)=1" }, responseURL: URL(string: "http://site\(site).example/")!)
    }
    let lookups = 200_000
    var header: String?
    let seconds = measureSeconds { for _ in 0..<lookups { header = jar.cookieHeaderValue(for: responseURL) } }
    precondition(header?.hasPrefix("s0=1; ") == true)
    rows.append(BenchRow(workload: "Cookie header for a request, jar of \(jar.count)", implementation: "ours (CookieJar)",
                         value: Double(lookups) / seconds, unit: "lookups/s", note: String(format: "%.0f ns each", seconds / Double(lookups) * 1e9)))
}
printTable("Cookie jar: storing a response's cookies and finding a request's", rows: rows)
