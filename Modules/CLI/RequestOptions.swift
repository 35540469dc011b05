import AFNetworking
import ArgumentParser
import Foundation

/// The options every request command shares.
struct RequestOptions: ParsableArguments {
    @Argument(help: "The URL.") var url: String
    @Argument(help: "Request items: key==value, key=value, key:=json, Header:value, field@path.")
    var items: [String] = []

    @Flag(name: .long, help: "Send fields as JSON (the default when there are fields and no files).")
    var json = false
    @Flag(name: .long, help: "Send fields as application/x-www-form-urlencoded.")
    var form = false
    @Flag(name: .long, help: "Send fields and files as multipart/form-data (implied by field@path items).")
    var multipart = false

    @Flag(name: [.customShort("i"), .long], help: "Print the status line and response headers.")
    var headers = false
    @Option(name: [.customShort("p"), .customLong("print")], help: ArgumentHelp(
        "What to print: H request headers, B request body, h response headers, b response body (default b, hb with -i).",
        valueName: "HBhb"))
    var printedParts: String?
    @Flag(name: .long, help: "Print the body exactly as received.")
    var raw = false
    @Option(name: .long, help: "Evaluate an XPath expression on an XML response and print the result.")
    var xpath: String?
    @Flag(name: .long, help: "Print a JSON body as a typed tree (string, number, bool, null) instead of JSON.")
    var decode = false

    @Option(name: .long, help: "Write the body to this file (with a progress bar on a terminal).")
    var download: String?
    @Flag(name: [.customShort("c"), .long], help: "With --download: resume a partial file with a Range request.")
    var `continue` = false

    @OptionGroup var tls: TLSOptions

    @Option(name: .long, help: "Idle timeout in seconds (the request fails with -1001 after it).")
    var timeout: Double?
    @Flag(name: .customLong("http2"), help: "Ask for HTTP/2 also in clear text (h2c upgrade); over TLS it is the default.")
    var http2 = false
    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 only, also over TLS.")
    var http11 = false
    @Option(name: .long, help: "How many redirects to follow (default 16).")
    var maxRedirects: Int?
    @Option(name: .long, help: "Basic authentication as user:password.")
    var user: String?
    @Option(name: .long, help: ArgumentHelp(
        "Retry a failed request up to this many times: timeouts, lost connections, 408 and 5xx, with backoff and the server's Retry-After.",
        valueName: "count"))
    var retry: Int?
    @Option(name: .long, help: "Fail when the whole request (waiting included) takes longer than this many seconds.")
    var maxTime: Double?
    @Flag(name: .long, help: "When the network is down, wait for it (up to --max-time) instead of failing.")
    var waitForNetwork = false
    @Option(name: .long, help: ArgumentHelp(
        "Keep an HTTP cache in this directory (made readable by you only): a fresh response is answered from it, a stale one revalidated.",
        valueName: "directory"))
    var cache: String?
    @Flag(name: .shortAndLong, help: "Print the request and timings from the task's metrics on stderr.")
    var verbose = false
    @Flag(name: .long, help: ArgumentHelp(
        "Print the body as it arrives: server-sent events one at a time, JSON Lines line by line, anything else in chunks.",
        discussion: "For streams that never end (event feeds, model output); the request's fields and files are not sent."))
    var stream = false

    func validate() throws {
        if [json, form, multipart].filter({ $0 }).count > 1 {
            throw ValidationError("Choose one of --json, --form and --multipart.")
        }
        if stream && download != nil { throw ValidationError("Choose one of --stream and --download.") }
        if let printedParts, printedParts.isEmpty || !printedParts.allSatisfy({ "HBhb".contains($0) }) {
            throw ValidationError("--print takes letters from HBhb: H request headers, B request body, h response headers, b response body.")
        }
        if http2 && http11 { throw ValidationError("Choose one of --http2 and --http1.1.") }
        if `continue` && download == nil { throw ValidationError("--continue needs --download PATH.") }
        if let user, !user.contains(":") { throw ValidationError("--user takes user:password.") }
        for item in items {
            do { _ = try RequestItem(parsing: item) } catch { throw ValidationError("\(error)") }
        }
    }
}

extension RequestOptions {
    /// What to print for `method`: `--print`'s letters, else the body (and the response head with -i,
    /// or for HEAD).
    func parts(for method: String) -> Set<Character> {
        if let printedParts { return Set(printedParts) }
        return headers || method == "HEAD" ? ["h", "b"] : ["b"]
    }
}
