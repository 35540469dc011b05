import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which tasks the engine may hand to libcurl now, given the per-host connection limit
/// (`httpMaximumConnectionsPerHost`), and which wait, in priority order.
///
/// libcurl enforces `CURLMOPT_MAX_HOST_CONNECTIONS` with a first-come pending queue; keeping the surplus
/// here instead lets a higher ``SessionTask/priority`` start first (FIFO among equal priorities). A host
/// known to multiplex (its responses came over HTTP/2 or HTTP/3) runs every transfer on one connection,
/// so its tasks are no longer held back; there the priority travels as the stream weight instead.
///
/// A slot is held from admission until the transfer is delivered (retries and redirects keep it, under
/// the host the transfer was admitted for). A suspended waiting task stays queued and is skipped until
/// it is resumed.
///
/// Threading: engine thread only (a value the engine owns).
struct HostAdmission {
    /// Transfers per host at once; 0 or less: no limit (nothing ever waits).
    private let limit: Int
    /// Admitted, undelivered tasks per host.
    private var active: [String: Int] = [:]
    /// The host key each admitted or waiting task counts against, by task identity.
    private var keys: [ObjectIdentifier: String] = [:]
    private var waiting: [String: WaitingTasks] = [:]
    private var multiplexing: Set<String> = []

    init(limit: Int) { self.limit = limit }

    /// Whether any task waits (the engine then looks for hosts that turned out to multiplex).
    var hasWaiting: Bool { !waiting.isEmpty }

    /// How many tasks wait for a connection.
    var waitingCount: Int { waiting.values.reduce(0) { $0 + $1.count } }

    /// The key a request for `url` counts against: `host:port` (the proxy's when one is set); nil for a
    /// URL without a host (it fails in configuration, never waits).
    static func key(for url: URL, proxy: String?) -> String? {
        if let proxy { return proxy }
        // Percent-encoded: the key only has to tell hosts apart, and decoding costs on every request.
        guard let host = url.host(percentEncoded: true)?.lowercased(), !host.isEmpty else {
            return nil
        }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    /// Admits `task` (true: start it now; its slot is counted) or queues it (false).
    mutating func admit(_ task: SessionTask, key: String?) -> Bool {
        guard let key else { return true }
        keys[ObjectIdentifier(task)] = key
        if limit <= 0 || multiplexing.contains(key) || active[key, default: 0] < limit {
            active[key, default: 0] += 1
            return true
        }
        waiting[key, default: WaitingTasks()].insert(task, priority: task.priority)
        return false
    }

    /// Frees the slot of a delivered task; returns its host when a waiting task may now start there.
    mutating func release(_ task: SessionTask) -> String? {
        guard let key = keys.removeValue(forKey: ObjectIdentifier(task)) else { return nil }
        let count = active[key, default: 1] - 1
        active[key] = count > 0 ? count : nil
        return waiting[key] == nil ? nil : key
    }

    /// The next task to start on `key` (counted as admitted), or nil when none may start: the host is
    /// full, nothing waits, or every waiting task is suspended.
    mutating func next(for key: String) -> SessionTask? {
        guard limit <= 0 || multiplexing.contains(key) || active[key, default: 0] < limit,
              waiting[key] != nil else { return nil }
        // Mutated in place: a copy of the queue would copy its arrays on every dequeue.
        let task = waiting[key]?.removeFirst { $0.state != .suspended }
        if waiting[key]?.isEmpty == true { waiting[key] = nil }
        if task != nil { active[key, default: 0] += 1 }
        return task
    }

    /// The host an admitted or waiting task counts against.
    func host(of task: SessionTask) -> String? { keys[ObjectIdentifier(task)] }

    /// The host of a waiting task (nil when `task` is not waiting).
    func waitingHost(of task: SessionTask) -> String? {
        guard let key = keys[ObjectIdentifier(task)], waiting[key]?.contains(task) == true else { return nil }
        return key
    }

    /// Takes `task` out of the queue (a cancel); false when it was not waiting.
    mutating func removeWaiting(_ task: SessionTask) -> Bool {
        guard let key = waitingHost(of: task) else { return false }
        _ = waiting[key]?.removeFirst { $0 === task }
        if waiting[key]?.isEmpty == true { waiting[key] = nil }
        keys[ObjectIdentifier(task)] = nil
        return true
    }

    /// Empties every queue (invalidation cancelling tasks), in start order.
    mutating func removeAllWaiting() -> [SessionTask] {
        var all: [SessionTask] = []
        for (_, var queue) in waiting {
            while let task = queue.removeFirst({ _ in true }) {
                keys[ObjectIdentifier(task)] = nil
                all.append(task)
            }
        }
        waiting.removeAll()
        return all
    }

    /// Whether `task`'s host is known to multiplex.
    func multiplexes(hostOf task: SessionTask) -> Bool {
        guard !multiplexing.isEmpty, let key = keys[ObjectIdentifier(task)] else { return false }
        return multiplexing.contains(key)
    }

    /// `host` multiplexes: its tasks stop waiting for a connection of their own.
    mutating func markMultiplexing(_ host: String) {
        multiplexing.insert(host)
    }

    /// A data task became a download task: the slot moves with the transfer.
    mutating func transfer(from old: SessionTask, to new: SessionTask) {
        if let key = keys.removeValue(forKey: ObjectIdentifier(old)) { keys[ObjectIdentifier(new)] = key }
    }
}

/// The tasks waiting for one host: a FIFO per distinct priority, highest priority first. Sessions use
/// few distinct priorities (usually one), so a bucket list beats a heap and keeps arrival order exactly.
struct WaitingTasks {
    private struct Bucket {
        let priority: Float
        /// Dequeued entries before `head` are nil (released, not shifted) until the array is compacted.
        var tasks: [SessionTask?]
        var head = 0
    }

    private var buckets: [Bucket] = []  // descending priority

    var isEmpty: Bool { buckets.isEmpty }

    var count: Int { buckets.reduce(0) { $0 + $1.tasks.count - $1.head } }

    func contains(_ task: SessionTask) -> Bool {
        buckets.contains { bucket in bucket.tasks[bucket.head...].contains { $0 === task } }
    }

    mutating func insert(_ task: SessionTask, priority: Float) {
        let index = buckets.firstIndex { $0.priority <= priority } ?? buckets.count
        if index < buckets.count, buckets[index].priority == priority {
            buckets[index].tasks.append(task)
        } else {
            buckets.insert(Bucket(priority: priority, tasks: [task]), at: index)
        }
    }

    /// Removes and returns the first task (highest priority, then oldest) that `matches`.
    mutating func removeFirst(_ matches: (SessionTask) -> Bool) -> SessionTask? {
        for bucketIndex in buckets.indices {
            let head = buckets[bucketIndex].head
            guard let index = buckets[bucketIndex].tasks[head...].firstIndex(where: { matches($0!) }),
                  let task = buckets[bucketIndex].tasks[index] else { continue }
            if index == head {
                buckets[bucketIndex].tasks[index] = nil
                buckets[bucketIndex].head += 1
            } else {
                buckets[bucketIndex].tasks.remove(at: index)
            }
            let newHead = buckets[bucketIndex].head, count = buckets[bucketIndex].tasks.count
            if newHead == count {
                buckets.remove(at: bucketIndex)
            } else if newHead >= 64 && newHead * 2 >= count {
                buckets[bucketIndex].tasks.removeFirst(newHead)
                buckets[bucketIndex].head = 0
            }
            return task
        }
        return nil
    }
}
