import AFNetworking
import ArgumentParser

/// `af`: a command-line HTTP client built on the whole AFNetworking stack.
///
/// Exit codes: 0 success; 1 an unexpected failure; 3 the server answered with a 4xx or 5xx status;
/// 4 a transport failure (cannot connect, timed out, connection lost...); 5 TLS or pinning failure
/// (the certificate was refused); 64 a usage error. `af ws` adds: 3 also for a refused handshake (4xx/5xx)
/// and a server's close code other than 1000/1001; 65 a line of standard input that was not valid input.
@main
struct AF: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "af",
        abstract: "An HTTP client on AFNetworking for Swift on Linux.",
        discussion: """
            Request items, after the URL: key==value (query), key=value (form or JSON field), key:=json \
            (raw JSON field), Header:value, field@path (multipart file).
            Exit codes: 0 success, 1 unexpected failure, 3 HTTP 4xx/5xx (ws: also a close code other than \
            1000/1001), 4 transport failure, 5 TLS/pinning failure, 64 usage, 65 (ws) a line of stdin \
            that was not valid input.
            """,
        version: "0.1.0",
        subcommands: [Get.self, Head.self, Post.self, Put.self, Patch.self, Delete.self, Reachability.self, ImageCommand.self,
                      WebSocketCommand.self]
    )
}

/// GET.
struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a GET request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await RequestRunner(method: "GET", options: request).run() }
}

/// HEAD.
struct Head: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a HEAD request (prints the headers).")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await RequestRunner(method: "HEAD", options: request).run() }
}

/// POST.
struct Post: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a POST request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await RequestRunner(method: "POST", options: request).run() }
}

/// PUT.
struct Put: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a PUT request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await RequestRunner(method: "PUT", options: request).run() }
}

/// PATCH.
struct Patch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a PATCH request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await RequestRunner(method: "PATCH", options: request).run() }
}

/// DELETE.
struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a DELETE request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await RequestRunner(method: "DELETE", options: request).run() }
}
