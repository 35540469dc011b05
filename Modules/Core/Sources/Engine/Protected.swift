import Foundation

/// A value guarded by a lock: the cross-thread state of the engine, tasks and managers.
///
/// Built on NSLock (a pthread mutex) rather than Synchronization's Mutex because ThreadSanitizer sees
/// pthread mutexes on Linux, and the Core tests must run clean under `--sanitize=thread`.
final class Protected<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written inside `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
