import AFNetworking
import ArgumentParser
import Foundation

/// `af <method> URL --stream`: performs the request on the lean path and prints the body as it arrives,
/// without waiting for its end: a `text/event-stream` body one event at a time (as `id:`, `event:` and
/// `data:` lines and an empty line, parsed by `ServerSentEventParser`, so its limits apply), JSON Lines
/// (`application/x-ndjson`, `application/jsonl`) a line at a time, anything else in chunks as received.
/// Each write goes straight to standard output.
struct StreamRunner {
    let manager: URLSessionManager
    let request: URLRequest
    let printsHead: Bool
    let style: TerminalStyle?

    func run() async throws {
        do {
            let (body, response) = try await manager.session.bytes(for: request)
            if printsHead {
                ResponsePrinter(raw: style == nil, xpath: nil, decode: false, style: style).printHead(response, protocolName: nil)
            }
            let type = response.value(forHTTPHeaderField: "Content-Type")?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased()
            switch type {
            case "text/event-stream": try await printEvents(of: body)
            case "application/x-ndjson", "application/jsonl", "application/json-lines": try await printLines(of: body)
            default: for try await chunk in body { FileHandle.standardOutput.write(chunk) }
            }
            if response.statusCode >= 400 { throw ExitStatus.httpError }
        } catch let error as ServerSentEventError {
            FileHandle.standardError.write(Data("af: the event stream broke a limit: \(error)\n".utf8))
            throw ExitCode.failure
        } catch let error as URLError {
            FileHandle.standardError.write(Data("af: \(RequestRunner.describe(error))\n".utf8))
            throw ExitStatus.forFailure(error)
        }
    }

    private func printEvents(of body: LeanResponseBody) async throws {
        var parser = ServerSentEventParser()
        for try await chunk in body {
            for event in try parser.parse(chunk) {
                var text = event.id.isEmpty ? "" : "id: \(event.id)\n"
                if event.type != "message" { text += "event: \(event.type)\n" }
                for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
                FileHandle.standardOutput.write(Data((text + "\n").utf8))
            }
        }
    }

    /// The most bytes of a line held back waiting for its line feed (a longer line goes out in pieces).
    static let maximumHeldLine = 256 << 10

    /// Writes each complete line once its line feed arrived (a last line without one at the end); a line
    /// past ``maximumHeldLine`` is written as it comes, so a server's endless line holds no memory.
    private func printLines(of body: LeanResponseBody) async throws {
        var partial = Data()
        for try await chunk in body {
            guard let last = chunk.lastIndex(of: 0x0A) else {
                partial.append(chunk)
                if partial.count > Self.maximumHeldLine {
                    FileHandle.standardOutput.write(partial)
                    partial = Data()
                }
                continue
            }
            partial.append(chunk[chunk.startIndex...last])
            FileHandle.standardOutput.write(partial)
            partial = Data(chunk[chunk.index(after: last)...])
        }
        if !partial.isEmpty { FileHandle.standardOutput.write(partial + Data("\n".utf8)) }
    }
}
