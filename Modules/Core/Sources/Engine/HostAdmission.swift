import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which tasks the engine may hand to libcurl now, given the per-host connection limit
/// (`httpMaximumConnectionsPerHost`), and which wait, in priority order.
///
/// libcurl enforces `CURLMOPT_MAX_HOST_CONNECTIONS` with a first-come pending queue; keeping the surplus
/// here instead lets a higher ``SessionTask/priority`` start first (FIFO among equal priorities). A host
/// known to multiplex (its responses came over HTTP/2 or HTTP/3) runs its transfers as streams on one
/// connection, so it takes as many as that carries (``multiplexedTransfersPerHost``) whatever the
/// per-host limit; among them the priority travels as the stream weight.
///
/// A slot is held from admission until the transfer is delivered (retries and redirects keep it, under
/// the host the transfer was admitted for). A suspended waiting task stays queued and is skipped until
/// it is resumed.
///
/// Until an https host's first response says which protocol it speaks, at most
/// ``connectionsWhileProtocolUnknown`` of its transfers start (each opens a connection of its own, a TLS
/// handshake each): had a burst of 4,096 started at once against an HTTP/2 server, libcurl would have made
/// about 4,000 connections where one carries them all. A response over HTTP/2 or HTTP/3 releases the rest
/// onto the connections open; one over HTTP/1.x releases them up to the per-host limit.
///
/// Threading: engine thread only. A class, not a value: a read through the engine's stored property
/// copied the whole table (its dictionaries and sets retained and released) on every call. Its state
/// skips run-time exclusivity checks, as the engine's own does: one thread touches it.
final class HostAdmission {
    /// Transfers per host at once; 0 or less: no limit (nothing ever waits).
    private let limit: Int
    /// Admitted, undelivered tasks per host.
    @exclusivity(unchecked) private var active: [String: Int] = [:]
    /// The host key each admitted or waiting task counts against, by task identity.
    @exclusivity(unchecked) private var keys: [ObjectIdentifier: String] = [:]
    @exclusivity(unchecked) private var waiting: [String: WaitingTasks] = [:]
    @exclusivity(unchecked) private var multiplexing: Set<String> = []
    /// Hosts whose responses came over HTTP/1.x: a connection per transfer, up to `limit`.
    @exclusivity(unchecked) private var serial: Set<String> = []
    /// https hosts whose protocol is not known yet: at most ``connectionsWhileProtocolUnknown`` transfers.
    @exclusivity(unchecked) private var probing: Set<String> = []

    /// How many transfers to an https host may start before its first response says whether it
    /// multiplexes (as many as URLSession's default connections per host).
    static let connectionsWhileProtocolUnknown = 6

    /// The streams libcurl runs on one multiplexed connection (the engine sets
    /// `CURLMOPT_MAX_CONCURRENT_STREAMS` to it; libcurl's default too).
    static let streamsPerConnection = 100

    /// Transfers at once to a host known to multiplex, whatever the per-host limit: what one connection
    /// carries. Handed more, libcurl opens a connection (a TLS handshake) for each transfer that finds
    /// the open ones full; held to one connection's worth, 4,096 in flight ran faster than at six
    /// connections' worth (profile mode: 22,139-24,251 req/s against 14,115-19,385).
    static let multiplexedTransfersPerHost = streamsPerConnection

    init(limit: Int) { self.limit = limit }

    /// Whether any task waits (the engine then looks for hosts that announced their protocol).
    var hasWaiting: Bool { !waiting.isEmpty }

    /// How many tasks wait for a connection.
    var waitingCount: Int { waiting.values.reduce(0) { $0 + $1.count } }

    /// Whether any host's protocol is still being found out (the engine then reports what each response
    /// came over).
    var isProbing: Bool { !probing.isEmpty }

    /// Whether `key`'s first response said which protocol it speaks.
    func knowsProtocol(of key: String) -> Bool {
        (!multiplexing.isEmpty && multiplexing.contains(key)) || (!serial.isEmpty && serial.contains(key))
    }

    /// Admits `task` (true: start it now; its slot is counted) or queues it (false). `mayMultiplex`: the
    /// task's request could be answered over HTTP/2 (https, HTTP/2 allowed, no proxy), so while its host's
    /// protocol is unknown the host takes at most ``connectionsWhileProtocolUnknown`` transfers.
    func admit(_ task: SessionTask, key: String?, mayMultiplex: Bool = false) -> Bool {
        guard let key else { return true }
        keys[ObjectIdentifier(task)] = key
        if mayMultiplex && !knowsProtocol(of: key) && !probing.contains(key) {
            Self.forgetAllIfFull(&probing)  // hosts whose probes all failed stay here
            probing.insert(key)
        }
        // The host's count is looked up once (each lookup hashes the key), and raised in place when there
        // is room. A host without transfers always has room (every bound is at least 1), so no entry of 0
        // is ever left behind.
        if Self.takeSlot(&active[key, default: 0], bound: bound(for: key)) { return true }
        waiting[key, default: WaitingTasks()].insert(task, priority: task.priority)
        return false
    }

    private static func takeSlot(_ count: inout Int, bound: Int) -> Bool {
        guard count < bound else { return false }
        count += 1
        return true
    }

    /// Whether one more transfer to `key` may start now.
    private func hasRoom(_ key: String) -> Bool {
        active[key, default: 0] < bound(for: key)
    }

    /// The most transfers `key` may have at once: a multiplexing host's one connection's worth, else the
    /// per-host limit (none: `Int.max`), held to ``connectionsWhileProtocolUnknown`` while its protocol
    /// is being found out. At least 1.
    private func bound(for key: String) -> Int {
        if !multiplexing.isEmpty && multiplexing.contains(key) { return Self.multiplexedTransfersPerHost }
        let perHost = limit <= 0 ? Int.max : limit
        if !probing.isEmpty && probing.contains(key) { return min(perHost, Self.connectionsWhileProtocolUnknown) }
        return perHost
    }

    /// Frees the slot of a delivered task; returns its host when a waiting task may now start there.
    func release(_ task: SessionTask) -> String? {
        guard let key = keys.removeValue(forKey: ObjectIdentifier(task)) else { return nil }
        // One lookup of the host's count: lowered in place, removed at zero.
        if let index = active.index(forKey: key) {
            let count = active.values[index] - 1
            if count > 0 { active.values[index] = count } else { active.remove(at: index) }
        }
        return waiting.isEmpty || waiting[key] == nil ? nil : key
    }

    /// The next task to start on `key` (counted as admitted), or nil when none may start: the host is
    /// full, nothing waits, or every waiting task is suspended.
    func next(for key: String) -> SessionTask? {
        guard waiting[key] != nil, hasRoom(key) else { return nil }
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
    func removeWaiting(_ task: SessionTask) -> Bool {
        guard let key = waitingHost(of: task) else { return false }
        _ = waiting[key]?.removeFirst { $0 === task }
        if waiting[key]?.isEmpty == true { waiting[key] = nil }
        keys[ObjectIdentifier(task)] = nil
        return true
    }

    /// Empties every queue (invalidation cancelling tasks), in start order.
    func removeAllWaiting() -> [SessionTask] {
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
    func markMultiplexing(_ host: String) {
        Self.forgetAllIfFull(&multiplexing)
        multiplexing.insert(host)
        probing.remove(host)
    }

    /// `host` answered over HTTP/1.x: its tasks take a connection each, up to the per-host limit.
    func markSerial(_ host: String) {
        guard !multiplexing.contains(host) else { return }
        Self.forgetAllIfFull(&serial)
        serial.insert(host)
        probing.remove(host)
    }

    /// How many hosts each of the protocol sets remembers: a session that meets more (a crawler) forgets
    /// them all and finds each one's protocol again, so the sets stay bounded.
    static let rememberedHosts = 4_096

    private static func forgetAllIfFull(_ hosts: inout Set<String>) {
        if hosts.count >= rememberedHosts { hosts.removeAll() }
    }

    /// A data task became a download task: the slot moves with the transfer.
    func transfer(from old: SessionTask, to new: SessionTask) {
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
