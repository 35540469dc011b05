import BenchSupport
import Dispatch
import Foundation

// Keeping requests in flight: the drivers every client of the session-engine benchmarks runs under.

/// Keeps `width` callback-style requests in flight until `count` finished; `start` launches one and calls
/// its argument when done. Returns wall seconds.
@discardableResult
public func callbacksInFlight(count: Int, width: Int, start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> Double {
    final class Counter: @unchecked Sendable {
        // @unchecked Sendable: every field is read and written under `lock`.
        let lock = NSLock()
        var launched = 0
        var finished = 0
    }
    let counter = Counter()
    let done = DispatchSemaphore(value: 0)
    @Sendable func launchNext() {
        counter.lock.lock()
        guard counter.launched < count else { counter.lock.unlock(); return }
        counter.launched += 1
        counter.lock.unlock()
        start {
            counter.lock.lock()
            counter.finished += 1
            let all = counter.finished == count
            counter.lock.unlock()
            if all { done.signal() } else { launchNext() }
        }
    }
    return measureSeconds {
        for _ in 0..<width { launchNext() }
        done.wait()
    }
}

/// Runs `width` async workers, each awaiting `fetch` one after another until `count` finished in all.
/// Returns wall seconds.
@discardableResult
public func asyncInFlight(count: Int, width: Int, executor: (any TaskExecutor)? = nil,
                   fetch: @escaping @Sendable () async -> Void) -> Double {
    final class Claims: @unchecked Sendable {
        // @unchecked Sendable: `next` is read and written under `lock`.
        let lock = NSLock()
        var next = 0
        let count: Int
        init(_ count: Int) { self.count = count }
        func claim() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard next < count else { return false }
            next += 1
            return true
        }
    }
    let claims = Claims(count)
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<width {
                    group.addTask(executorPreference: executor) { while claims.claim() { await fetch() } }
                }
            }
            done.signal()
        }
        done.wait()
    }
}

/// Hands out 0, 1, 2, ... to concurrent callers (a different URL for each request, say).
public final class SequenceCounter: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written under `lock`.
    private let lock = NSLock()
    private var value = 0
    public init() {}
    public func take() -> Int {
        lock.lock()
        defer { value += 1; lock.unlock() }
        return value
    }
}
