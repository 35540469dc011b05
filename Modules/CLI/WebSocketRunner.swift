import AFNetworking
import ArgumentParser
import Foundation

/// Runs one `af ws` session: opens a ``WebSocketTask`` on a session manager configured as `af get`'s
/// (TLS trust, pinning, client identity, proxies from the environment), sends the lines of standard input
/// and prints the messages received, and maps how the connection ended to the documented exit codes.
///
/// Two loops run at once: the receiving one (this task) prints each message as it arrives and ends with
/// the connection; the sending one (a child task) reads standard input once the handshake is answered and,
/// at its end, starts the closing handshake with 1000. When the server closes first, the sending loop is
/// left waiting on standard input and the process exits.
struct WebSocketRunner: Sendable {
    /// How lines are read and messages printed.
    enum Mode: Sendable {
        /// Lines sent as text; text printed as is, binary summarized.
        case text
        /// Lines are hex, sent as binary messages; binary messages printed as hex.
        case binary
        /// Lines must be JSON, sent as text; text messages printed as compact JSON.
        case json
    }

    let url: URL
    let headers: [(String, String)]
    let protocols: [String]
    let mode: Mode
    let tls: TLSOptions

    /// The exit code when a line of standard input was not sent (not hex with --binary, not JSON with
    /// --json) and the session otherwise ended well.
    static let refusedInput = ExitStatus.inputError

    func run() async throws {
        let manager = try makeManager()
        let result: Result<Void, any Error>
        do {
            try await converse(on: manager)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        // As the other commands: quiesce the session before the process exits (URLSessionManager.shutDown).
        await manager.shutDown(draining: nil)
        try result.get()
    }

    // MARK: Building

    private func makeManager() throws -> URLSessionManager {
        let configuration = URLSessionConfiguration.default
        // As `af get` (and curl): http_proxy, https_proxy, all_proxy and no_proxy from the environment.
        configuration.connectionProxyDictionary = [URLSessionConfiguration.environmentProxiesKey: true]
        let manager = URLSessionManager(sessionConfiguration: configuration)
        if let policy = try tls.securityPolicy(for: url.host) { try manager.setSecurityPolicy(policy) }
        manager.clientIdentity = try tls.clientIdentity()
        return manager
    }

    private func handshakeRequest() -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue(HTTPRequestSerializer.userAgent(applicationName: "af", applicationVersion: AF.configuration.version),
                         forHTTPHeaderField: "User-Agent")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    // MARK: Running

    /// What the sending loop did, read by the receiving one when the connection ended.
    final class SendingState: Sendable {
        private struct Inner {
            var startedClosing = false
            var refusedLines = 0
        }
        private let inner = Protected(Inner())

        /// Whether af started the closing handshake (standard input ended).
        var startedClosing: Bool { inner.withLock { $0.startedClosing } }
        /// How many lines were not sent because they were not valid input.
        var refusedLines: Int { inner.withLock { $0.refusedLines } }
        func markClosing() { inner.withLock { $0.startedClosing = true } }
        func countRefusal() { inner.withLock { $0.refusedLines += 1 } }
    }

    private func converse(on manager: URLSessionManager) async throws {
        let task = manager.webSocketTask(with: handshakeRequest(), protocols: protocols)
        let sending = SendingState()
        task.resume()
        let sender = Task { [self] in await sendStandardInput(to: task, recording: sending) }
        defer { sender.cancel() }
        do {
            for try await message in task.messages { print(message) }
        } catch {
            throw Self.report(error, of: task)
        }
        if !sending.startedClosing, let code = task.closeCode, code != 1000 && code != 1001 {
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            let explained = reason.isEmpty ? "" : " (\(reason))"
            if code == 1006 {
                Self.complain("the connection ended without a close frame (1006)")
                throw ExitStatus.transportError
            }
            Self.complain("the server closed the connection with \(code)\(explained)")
            throw ExitStatus.serverClosed
        }
        if sending.refusedLines > 0 { throw Self.refusedInput }
    }

    /// Sends each line of standard input (lines read before the handshake completes are sent once it
    /// does); at the end of the input starts the closing handshake with 1000. Returns early when the
    /// connection ended (the receiving loop reports why).
    private func sendStandardInput(to task: WebSocketTask, recording sending: SendingState) async {
        let lines = StandardInputLines()
        var number = 0
        while let line = await lines.next() {
            number += 1
            guard let message = message(from: line, number: number) else {
                sending.countRefusal()
                continue
            }
            guard await Self.send(message, on: task) else { return }
        }
        guard task.error == nil, !Task.isCancelled else { return }
        await Self.roundTrip(on: task, within: task.closeTimeout)
        guard task.error == nil, !Task.isCancelled else { return }
        sending.markClosing()
        task.cancel(with: 1000, reason: nil)
    }

    /// Sends a ping and returns when its pong arrived (or the connection ended, or `limit` passed).
    ///
    /// Before closing: a server that answers a close at once (the websockets library does) would drop
    /// the answers to the last messages it has read but not yet handled; the pong comes after the
    /// server read them, and gives it a round trip to send what it answers to them.
    static func roundTrip(on task: WebSocketTask, within limit: Duration) async {
        let resumed = Protected(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            task.sendPing { _ in resumeOnce() }
            let (seconds, attoseconds) = limit.components
            let milliseconds = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { resumeOnce() }
        }
    }

    /// The message a line of standard input makes, or nil (said on stderr) when the mode refuses it.
    private func message(from line: String, number: Int) -> WebSocketTask.Message? {
        switch mode {
        case .text:
            return .string(line)
        case .binary:
            guard let bytes = Self.bytes(fromHex: line) else {
                Self.complain("line \(number) is not hex (pairs of 0-9, a-f digits); not sent")
                return nil
            }
            return .data(bytes)
        case .json:
            do {
                _ = try JSONDecoder().decode(ParameterValue.self, from: Data(line.utf8))
            } catch {
                Self.complain("line \(number) is not valid JSON; not sent")
                return nil
            }
            return .string(line)
        }
    }

    /// Sends `message`, waiting while the send queue is full; false once the connection has ended.
    private static func send(_ message: WebSocketTask.Message, on task: WebSocketTask) async -> Bool {
        while true {
            do {
                try await task.send(message)
                return true
            } catch WebSocketTaskError.sendQueueFull {
                do { try await Task.sleep(for: .milliseconds(10)) } catch { return false }
            } catch {
                return false
            }
        }
    }

    // MARK: Printing

    private func print(_ message: WebSocketTask.Message) {
        let line: String
        switch (message, mode) {
        case (.string(let text), .json):
            line = Self.compactJSON(text) ?? text
        case (.string(let text), _):
            line = text
        case (.data(let data), .binary):
            line = Self.hex(data)
        case (.data(let data), _):
            line = "<binary \(data.count) bytes>"
        }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// `text` as compact JSON with sorted keys (one line), or nil when it is not JSON.
    static func compactJSON(_ text: String) -> String? {
        guard let value = try? JSONDecoder().decode(ParameterValue.self, from: Data(text.utf8)) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Lower-case hex, two digits a byte.
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(data.count * 2)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of a hex line (upper or lower case; blanks between digits ignored), or nil when it has
    /// another character or an odd number of digits. An empty line is an empty message.
    static func bytes(fromHex line: String) -> Data? {
        var bytes = Data()
        var high: UInt8?
        for character in line.utf8 where character != UInt8(ascii: " ") && character != UInt8(ascii: "\t") {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? bytes : nil
    }

    // MARK: Reporting

    private static func complain(_ text: String) {
        FileHandle.standardError.write(Data("af: \(text)\n".utf8))
    }

    /// Says on stderr why the connection failed and returns the exit code for it.
    static func report(_ error: any Error, of task: WebSocketTask) -> ExitCode {
        guard let failure = error as? WebSocketTaskError else {
            complain(RequestRunner.describe(error))
            return .failure
        }
        switch failure {
        case .transport(let urlError):
            complain(RequestRunner.describe(urlError))
            return ExitStatus.forFailure(urlError)
        case .handshakeFailed(let reason):
            complain("the WebSocket handshake failed: \(reason)")
            return (task.response?.statusCode ?? 0) >= 400 ? ExitStatus.httpError : ExitStatus.transportError
        case .protocolViolation(let violation):
            let code = task.closeCode.map { " (closed with \($0))" } ?? ""
            complain("the server broke the WebSocket protocol: \(violation)\(code)")
            return ExitStatus.transportError
        case .closed(let code, let reason):
            complain("the connection closed with \(code)\(reason.isEmpty ? "" : " (\(reason))")")
            return ExitStatus.serverClosed
        case .sendQueueFull, .invalidMessage, .notConnected:
            complain("\(failure)")
            return .failure
        }
    }
}
