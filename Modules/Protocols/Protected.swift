import Foundation

/// A value guarded by a lock: the package's one lock type, for every module's cross-thread state.
///
/// A pthread mutex rather than Synchronization's Mutex because ThreadSanitizer sees pthread mutexes on
/// Linux (Mutex is a futex it does not see: it reports every access a Mutex guards), and the tests it
/// runs must run clean under `--sanitize=thread`. One deliberate exception: AFWebSocket's per-message
/// state keeps a Mutex, which costs a fifth of this lock, outside the sanitizer's build (see
/// `WebSocketTask.state`). The mutex lives in the same allocation as the value (NSLock would add an object
/// and a separately allocated mutex): every task carries a few of these, so they are made and freed on
/// every request.
package struct Protected<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: the value is Sendable and only read or written with the mutex held; the
    // storage class is what the compiler cannot check.
    private let storage: Storage

    package init(_ value: Value) { storage = Storage.make(value) }

    /// Runs `body` with exclusive access to the value; rethrows what `body` throws, typed.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let (value, mutex) = storage.withUnsafeMutablePointers { ($0, $1) }
        // The pointers stay valid while `storage` lives: keep it alive until the lock is released. As
        // AnyObject: kept alive as `Storage`, the generic call would look up `Storage<Value>`'s metadata
        // at run time on every call (4% of the engine thread's samples at 32 requests in flight).
        defer { withExtendedLifetime(storage as AnyObject) {} }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// Runs `body` with the mutex held, without touching the value: for a `Protected<Void>` that guards
    /// state kept elsewhere (a task's inline state). `withLock` would make an `inout Void` access, which
    /// the thread sanitizer reports against another thread finding the mutex.
    package func locked<Result>(_ body: () -> Result) -> Result {
        let mutex = storage.withUnsafeMutablePointerToElements { $0 }
        defer { withExtendedLifetime(storage as AnyObject) {} }  // as in withLock
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// The value (header) and its mutex (the single tail element) in one allocation.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: Storage.self)
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            return buffer
        }

        deinit {
            withUnsafeMutablePointers { _, mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }
}
