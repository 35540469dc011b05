// Launching a server under Integration/servers/guard.sh, and stopping every such server at exit.
import Foundation
import Synchronization

/// A server process running under `Integration/servers/guard.sh`.
///
/// The guard is a direct child of this test process. It stops the server's whole process group when
/// it receives TERM (sent by `stop()` and by the `atexit` handler) or when its parent changes, which
/// happens when the test process dies in any way, including `kill -9`.
final class GuardedProcess: Sendable {
    /// The server this process runs.
    let server: HarnessServer
    /// The pid of the guard script (the server is the guard's child).
    let guardPID: pid_t
    /// Where the guard writes the server's pid, which is also the server's process group id.
    let serverPIDFile: URL
    /// The guard's wait status once it has been reaped.
    private let reapedStatus = Mutex<Int32?>(nil)

    private init(server: HarnessServer, guardPID: pid_t, serverPIDFile: URL) {
        self.server = server
        self.guardPID = guardPID
        self.serverPIDFile = serverPIDFile
    }

    /// Starts `executable` with `arguments` under the guard, with stdin from /dev/null and stdout and
    /// stderr appended to `logFile` (truncated first), and registers it to be stopped at exit.
    static func launch(
        server: HarnessServer,
        executable: String,
        arguments: [String],
        environment: [String: String] = [:],
        logFile: URL,
        locations: HarnessLocations
    ) throws(HarnessError) -> GuardedProcess {
        let pidFile = locations.runDirectory.appendingPathComponent("\(server.rawValue).guarded-pid")
        let argv = ["/bin/bash", locations.serverFile("guard.sh").path, String(getpid()), pidFile.path, "--",
                    executable] + arguments
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let envp = variables.map { "\($0.key)=\($0.value)" }

        let pid = try spawn(argv: argv, environment: envp, logFile: logFile.path)
        let process = GuardedProcess(server: server, guardPID: pid, serverPIDFile: pidFile)
        ProcessRegistry.shared.register(process)
        return process
    }

    /// posix_spawn with clean signal state: an empty signal mask and default dispositions, because a
    /// spawned process inherits the calling thread's mask and ignored signals, and the guard and the
    /// servers must react to TERM.
    private static func spawn(argv: [String], environment: [String], logFile: String) throws(HarnessError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaulted = sigset_t()
        sigemptyset(&defaulted)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGCHLD, SIGUSR1, SIGUSR2] {
            sigaddset(&defaulted, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaulted)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        guard result == 0 else {
            throw .setupFailed(step: "spawning \(argv.joined(separator: " "))",
                               reason: String(cString: strerror(result)))
        }
        return pid
    }

    /// Whether the guard has exited (it exits when its server exits). Reaps the guard when it has.
    var hasExited: Bool { exitStatus != nil }

    /// The guard's exit status once it has exited (the server's status when the server exited by
    /// itself), `nil` while it runs.
    var exitStatus: Int32? {
        reapedStatus.withLock { reaped in
            if let reaped { return Self.exitCode(fromWaitStatus: reaped) }
            var status: Int32 = 0
            let result = waitpid(guardPID, &status, WNOHANG)
            if result == guardPID {
                reaped = status
            } else if result == -1 && errno == ECHILD {
                reaped = 0  // reaped elsewhere: it is gone either way
            }
            return reaped.map(Self.exitCode(fromWaitStatus:))
        }
    }

    /// Asks the guard to stop the server and waits until it has, up to `timeout`. If the guard does not
    /// finish in time, kills the guard and the server's process group outright.
    func stop(timeout: Duration = .seconds(3)) {
        requestStop()
        waitForStop(timeout: timeout)
    }

    /// Sends TERM to the guard, which stops the server's process group.
    func requestStop() {
        if !hasExited { kill(guardPID, SIGTERM) }
    }

    /// Waits for the guard to finish after `requestStop()`, escalating to KILL after `timeout`.
    func waitForStop(timeout: Duration) {
        let deadline = ContinuousClock.now + timeout
        while !hasExited && ContinuousClock.now < deadline {
            usleep(10_000)
        }
        guard !hasExited else { return }
        if let text = try? String(contentsOf: serverPIDFile, encoding: .utf8),
           let group = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), group > 1 {
            kill(-group, SIGKILL)
        }
        kill(guardPID, SIGKILL)
        while !hasExited { usleep(10_000) }
    }

    private static func exitCode(fromWaitStatus status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// Every guarded process of this test process, stopped together by an `atexit` handler.
final class ProcessRegistry: Sendable {
    /// The process-wide registry.
    static let shared = ProcessRegistry()

    private struct State {
        var processes: [GuardedProcess] = []
        var exitHandlerInstalled = false
    }
    private let state = Mutex(State())

    /// Adds `process`, installing the `atexit` handler on first use.
    func register(_ process: GuardedProcess) {
        let installHandler = state.withLock { state in
            state.processes.append(process)
            defer { state.exitHandlerInstalled = true }
            return !state.exitHandlerInstalled
        }
        if installHandler {
            atexit { ProcessRegistry.shared.stopAll() }
        }
    }

    /// Stops every registered process: TERM to all guards at once, then waits for each.
    func stopAll() {
        let processes = state.withLock { state in
            defer { state.processes.removeAll() }
            return state.processes
        }
        processes.forEach { $0.requestStop() }
        processes.forEach { $0.waitForStop(timeout: .seconds(3)) }
    }
}
