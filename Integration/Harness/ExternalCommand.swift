// Running a command-line tool (openssl, curl, the setup scripts) and collecting its output.
import Foundation
import Synchronization

/// The outcome of running an external command.
public struct CommandResult: Sendable {
    /// The exit code, or 128 + the signal number when a signal ended the process.
    public let exitCode: Int32
    /// Everything the command wrote to standard output.
    public let stdout: Data
    /// Everything the command wrote to standard error.
    public let stderr: Data
    /// Whether the harness terminated the command because its timeout passed.
    public let timedOut: Bool

    /// Standard output decoded as UTF-8.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error decoded as UTF-8.
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    /// Standard output followed by standard error, for matching messages that may go to either.
    public var combinedText: String { stdoutText + stderrText }
}

/// Runs external commands without blocking Swift concurrency's cooperative threads.
public enum ExternalCommand {
    /// Runs `executable` (an absolute path, or a name looked up in `PATH`) with `arguments`.
    ///
    /// Standard input is `input` when given, else /dev/null. The command is sent TERM when `timeout`
    /// passes (then KILL a second later) and the result says `timedOut`. A non-zero exit code is not
    /// an error; throws only when the command cannot be found or started.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        input: Data? = nil,
        environment: [String: String] = [:],
        timeout: Duration = .seconds(60)
    ) async throws(HarnessError) -> CommandResult {
        let path = try resolve(executable)
        let result = await runBlocking {
            runAndWait(path: path, arguments: arguments, input: input, environment: environment, timeout: timeout)
        }
        return try result.get()
    }

    /// Runs a command and throws `.commandFailed` (with its output) unless it exits with 0.
    @discardableResult
    static func runChecked(
        _ executable: String, _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws(HarnessError) -> CommandResult {
        let result = try await run(executable, arguments, timeout: timeout)
        guard result.exitCode == 0 else {
            throw .commandFailed(command: ([executable] + arguments).joined(separator: " "),
                                 exitCode: result.exitCode, output: result.combinedText)
        }
        return result
    }

    /// The absolute path of `executable`, searching `PATH` for a bare name.
    static func resolve(_ executable: String) throws(HarnessError) -> String {
        if executable.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw .missingTool(name: executable, hint: "No executable file at that path.")
            }
            return executable
        }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") {
            let candidate = "\(directory)/\(executable)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw .missingTool(name: executable, hint: "Not found in PATH; run Scripts/bootstrap.")
    }

    /// The blocking run behind `run`, on a thread of its own.
    private static func runAndWait(
        path: String, arguments: [String], input: Data?, environment: [String: String], timeout: Duration
    ) -> Result<CommandResult, HarnessError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        let stdinPipe = input.map { _ in Pipe() }
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe ?? FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            return .failure(.commandFailed(command: ([path] + arguments).joined(separator: " "),
                                           exitCode: -1, output: "could not start: \(error)"))
        }

        // Drain both pipes (and feed stdin) concurrently, so a chatty command never blocks on a full pipe.
        let outputs = Mutex((stdout: Data(), stderr: Data()))
        let readers = DispatchGroup()
        readers.enter()
        startThread {
            let data = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
            outputs.withLock { $0.stdout = data }
            readers.leave()
        }
        readers.enter()
        startThread {
            let data = stderrPipe.fileHandleForReading.readDataToEndOfFile()
            outputs.withLock { $0.stderr = data }
            readers.leave()
        }
        if let stdinPipe, let input {
            startThread {
                try? stdinPipe.fileHandleForWriting.write(contentsOf: input)
                try? stdinPipe.fileHandleForWriting.close()
            }
        }

        let (seconds, attoseconds) = timeout.components
        let timedOut = exited.wait(timeout: .now() + .milliseconds(Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000))) == .timedOut
        if timedOut {
            let pid = process.processIdentifier
            kill(pid, SIGTERM)
            if exited.wait(timeout: .now() + .seconds(1)) == .timedOut {
                kill(pid, SIGKILL)
                exited.wait()
            }
        }
        // A descendant that inherited the pipes could keep them open long after the command exited;
        // do not wait for it forever (the output collected so far is then lost).
        _ = readers.wait(timeout: .now() + .seconds(10))
        let collected = outputs.withLock { $0 }
        let status = process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
        return .success(CommandResult(exitCode: status, stdout: collected.stdout, stderr: collected.stderr,
                                      timedOut: timedOut))
    }
}
