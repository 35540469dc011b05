// The servers the harness runs, their log files, and reading the end of a log.
import Foundation

/// A server process started by the harness.
public enum HarnessServer: String, Sendable, CaseIterable {
    /// httpbin under gunicorn (2 sync workers).
    case httpbin
    /// nginx: plain HTTP and one HTTPS port per TLS scenario.
    case nginx
    /// The Python fault server (stall, drop, upload sink), also reached through nginx.
    case faultServer
    /// tinyproxy: an HTTP forward proxy (CONNECT for https) that requires credentials.
    case tinyproxy
    /// microsocks: a SOCKS5 proxy that requires a user name and password.
    case microsocks
    /// The Python `websockets` library's server (echo, subprotocols, closing, cookies).
    case webSocketServer
    /// The official MCP Python SDK's server (Streamable HTTP), started by the MCP tests only.
    case mcpServer

    /// The log files of this server inside the run folder's `logs/` directory. The first one receives
    /// the server's stdout and stderr (and the guard's messages); httpbin's and nginx's access logs are
    /// the second.
    var logFileNames: [String] {
        switch self {
        case .httpbin: return ["httpbin.log", "httpbin-access.log"]
        case .nginx: return ["nginx.log", "nginx-access.log"]
        case .faultServer: return ["fault-server.log"]
        case .tinyproxy: return ["tinyproxy.log"]
        case .microsocks: return ["microsocks.log"]
        case .webSocketServer: return ["websocket-server.log"]
        case .mcpServer: return ["mcp-server.log"]
        }
    }
}

/// Reading the last lines of a log file without loading all of it.
enum LogTail {
    /// The last `lines` lines of the file at `url` (at most the last 64 KiB), or a note when it cannot be read.
    static func read(_ url: URL, lines: Int) -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            return "(no log at \(url.path))"
        }
        defer { try? handle.close() }
        let window: UInt64 = 64 * 1024
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > window ? size - window : 0)
        let data = (try? handle.readToEnd()) ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        var tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines + 1)
        if tail.last == "" { tail.removeLast() }
        return tail.suffix(lines).joined(separator: "\n")
    }

    /// The tails of all of `server`'s logs in `logsDirectory`, each under a header naming the file.
    static func read(server: HarnessServer, in logsDirectory: URL, lines: Int) -> String {
        server.logFileNames.map { name in
            "==> \(name) <==\n" + read(logsDirectory.appendingPathComponent(name), lines: lines)
        }.joined(separator: "\n")
    }
}
