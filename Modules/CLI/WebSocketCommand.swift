import AFNetworking
import ArgumentParser
import Foundation

/// `af ws URL [Header:value ...] [--protocol NAME ...] [--json | --binary]`: a WebSocket session between
/// standard input and standard output (``WebSocketRunner`` does the work).
struct WebSocketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ws",
        abstract: "Open a WebSocket: send each line of stdin as a message, print each message received.",
        discussion: """
            Each line read from stdin is sent as a text message (with --binary: as hex, sent as a binary \
            message; with --json: checked to be JSON and sent as typed). Each message received is printed \
            on its own line as it arrives: text as is, binary as <binary N bytes> (as hex with --binary), \
            text with --json as compact JSON with sorted keys (text that is not JSON as is). \
            When stdin ends, af sends a ping and waits for its pong (so that the answers to the last lines \
            arrive first), closes with 1000, waits for the server's close (each wait up to 5 s) and exits 0. \
            When the server closes first: exit 0 for 1000 and 1001; for another code a line on stderr \
            naming it and its reason, and exit 3 (4 for 1006, a connection ended without a close frame). \
            A refused handshake exits 3 for a 4xx/5xx answer, 4 otherwise; a transport failure 4; \
            TLS or pinning 5. A line of stdin that is not valid --json or --binary input is not sent: \
            af says so on stderr, carries on, and exits 65 at the end. Proxies come from http_proxy, \
            https_proxy, all_proxy and no_proxy, as for the other commands.
            """)

    @Argument(help: "The URL: ws:// or wss:// (http:// and https:// are taken as ws:// and wss://).")
    var url: String
    @Argument(help: "Handshake items: Header:value (a header field of the handshake), key==value (added to the query).")
    var items: [String] = []

    @Option(name: .customLong("protocol"), help: ArgumentHelp(
        "Offer this subprotocol (Sec-WebSocket-Protocol); repeatable, most preferred first.", valueName: "name"))
    var protocols: [String] = []
    @Flag(name: .long, help: "Lines of stdin must be JSON; text messages received are printed as compact JSON.")
    var json = false
    @Flag(name: .long, help: "Lines of stdin are hex, sent as binary messages; binary messages received are printed as hex.")
    var binary = false

    @OptionGroup var tls: TLSOptions

    func validate() throws {
        if json && binary { throw ValidationError("Choose one of --json and --binary.") }
        _ = try Self.absoluteURL(url)
        for item in items { _ = try Self.handshakeItem(item) }
    }

    func run() async throws {
        var headers: [(String, String)] = []
        var query: [(String, String)] = []
        for item in items {
            switch try Self.handshakeItem(item) {
            case .header(let name, let value): headers.append((name, value))
            case .query(let name, let value): query.append((name, value))
            default: break
            }
        }
        let target = RequestRunner.appendingQuery(query, to: try Self.absoluteURL(url))
        let mode: WebSocketRunner.Mode = json ? .json : (binary ? .binary : .text)
        try await WebSocketRunner(url: target, headers: headers, protocols: protocols, mode: mode, tls: tls).run()
    }

    /// `text` as an absolute ws, wss, http or https URL.
    static func absoluteURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil,
              ["ws", "wss", "http", "https"].contains(scheme) else {
            throw ValidationError("'\(text)' is not an absolute ws:// or wss:// URL.")
        }
        return url
    }

    /// One item of the command line: a header field or a query item (a handshake has no body).
    static func handshakeItem(_ text: String) throws -> RequestItem {
        let item: RequestItem
        do { item = try RequestItem(parsing: text) } catch { throw ValidationError("\(error)") }
        switch item {
        case .header, .query: return item
        case .field, .jsonField, .file:
            throw ValidationError("invalid item '\(text)': af ws takes Header:value and key==value items only")
        }
    }
}
