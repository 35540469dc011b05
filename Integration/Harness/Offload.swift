// Running blocking work (waiting for a process, socket I/O, pipe reads) on threads of its own.
import Foundation

/// Runs `work` on a new thread and returns its result.
///
/// Blocking calls must not run on Swift concurrency's cooperative pool, nor on Dispatch's global
/// queues: on Linux both have about one thread per CPU, so a few waits (a stalled socket, a running
/// `openssl`) would hold up every other test. A dedicated thread per blocking call costs far less than
/// the work it waits for.
func runBlocking<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        startThread { continuation.resume(returning: work()) }
    }
}

/// Runs throwing `work` on a new thread and returns its result or rethrows its error (for tests that
/// drive blocking tools, such as `ip`, from async code).
public func runBlocking<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        startThread { continuation.resume(with: Swift.Result { try work() }) }
    }
}

/// Starts a detached thread running `body`.
func startThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 512 * 1024
    thread.start()
}
