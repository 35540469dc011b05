import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

@Suite("Task priority")
struct TaskPriorityTests {
    @Test func priorityMapsToHTTP2StreamWeight() {
        #expect(HTTP2StreamWeight.weight(forPriority: 0) == 1)
        #expect(HTTP2StreamWeight.weight(forPriority: 0.25) == 9)
        #expect(HTTP2StreamWeight.weight(forPriority: 0.5) == 16)
        #expect(HTTP2StreamWeight.weight(forPriority: 0.75) == 136)
        #expect(HTTP2StreamWeight.weight(forPriority: 1) == 256)
        #expect(HTTP2StreamWeight.weight(forPriority: -3) == 1)
        #expect(HTTP2StreamWeight.weight(forPriority: 7) == 256)
        #expect(HTTP2StreamWeight.weight(forPriority: .nan) == 16)
        #expect(HTTP2StreamWeight.defaultWeight == 16)
    }

    /// Tasks in the running state that never reach an engine (HostAdmission only reads their state).
    private func tasks(_ priorities: [Float], manager: URLSessionManager) -> [SessionDataTask] {
        priorities.map { priority in
            let task = manager.dataTask(with: URLRequest(url: URL(string: "http://127.0.0.1:9/")!), completionHandler: nil)
            task.priority = priority
            setState(task, .running)
            return task
        }
    }

    private func setState(_ task: SessionTask, _ state: NetworkTaskState) {
        task.updateStorage { $0.state = state }
    }

    @Test func waitingTasksStartByPriorityThenArrival() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 2)
        let all = tasks([0.5, 0.5, 0.1, 0.9, 0.5, 0.9, 0.1], manager: manager)
        let admitted = all.map { admission.admit($0, key: "a.example:80") }
        #expect(admitted == [true, true, false, false, false, false, false])
        #expect(admission.hasWaiting)
        // A full host starts nothing.
        #expect(admission.next(for: "a.example:80") == nil)

        var order: [Int] = []
        for finished in all {
            guard let host = admission.release(finished) else { continue }
            while let next = admission.next(for: host) { order.append(next.taskIdentifier) }
        }
        #expect(order == [all[3], all[5], all[4], all[2], all[6]].map(\.taskIdentifier))
        #expect(!admission.hasWaiting)
    }

    /// An https host that may speak HTTP/2 takes six transfers until its first response says which
    /// protocol it speaks (each would open a TLS connection of its own); HTTP/2 then releases all the
    /// others at once.
    @Test func aHostOfUnknownProtocolTakesSixUntilItMultiplexes() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 100)
        let all = tasks(Array(repeating: 0.5, count: 10), manager: manager)
        let admitted = all.map { admission.admit($0, key: "h2.example:443", mayMultiplex: true) }
        #expect(HostAdmission.connectionsWhileProtocolUnknown == 6)
        #expect(admitted == Array(repeating: true, count: 6) + Array(repeating: false, count: 4))
        #expect(admission.isProbing)
        #expect(!admission.knowsProtocol(of: "h2.example:443"))
        #expect(admission.next(for: "h2.example:443") == nil)

        admission.markMultiplexing("h2.example:443")
        #expect(!admission.isProbing)
        #expect(admission.knowsProtocol(of: "h2.example:443"))
        var started: [Int] = []
        while let next = admission.next(for: "h2.example:443") { started.append(next.taskIdentifier) }
        #expect(started == all[6...].map(\.taskIdentifier))
        // Known to multiplex: as many as one connection carries (100 streams) start at once, whatever
        // the per-host limit (100 here, 1 below); the rest wait (libcurl would open a connection for each).
        #expect(HostAdmission.streamsPerConnection == 100)
        #expect(HostAdmission.multiplexedTransfersPerHost == 100)
        let later = tasks(Array(repeating: 0.5, count: 91), manager: manager)
        #expect(later.map { admission.admit($0, key: "h2.example:443", mayMultiplex: true) }
            == Array(repeating: true, count: 90) + [false])
        #expect(!admission.isProbing)
        #expect(admission.release(all[0]) == "h2.example:443")
        #expect(admission.next(for: "h2.example:443")?.taskIdentifier == later[90].taskIdentifier)
        let single = HostAdmission(limit: 1)
        single.markMultiplexing("h2.example:443")
        let streams = tasks(Array(repeating: 0.5, count: 101), manager: manager)
        #expect(streams.map { single.admit($0, key: "h2.example:443") } == Array(repeating: true, count: 100) + [false])
    }

    /// A host that answers over HTTP/1.x takes its waiting tasks up to the per-host limit, and later
    /// ones are no longer held at six.
    @Test func aHostThatAnswersOverHTTP1TakesTheLimit() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 8)
        let all = tasks(Array(repeating: 0.5, count: 12), manager: manager)
        let admitted = all.map { admission.admit($0, key: "h1.example:443", mayMultiplex: true) }
        #expect(admitted == Array(repeating: true, count: 6) + Array(repeating: false, count: 6))
        admission.markSerial("h1.example:443")
        #expect(!admission.isProbing)
        #expect(admission.knowsProtocol(of: "h1.example:443"))
        var started: [Int] = []
        while let next = admission.next(for: "h1.example:443") { started.append(next.taskIdentifier) }
        #expect(started == all[6..<8].map(\.taskIdentifier))
        for finished in all[0..<4] {
            guard let host = admission.release(finished) else { continue }
            while let next = admission.next(for: host) { started.append(next.taskIdentifier) }
        }
        #expect(started == all[6..<12].map(\.taskIdentifier))
        #expect(!admission.hasWaiting)
        // A host known to multiplex is never demoted by an HTTP/1.x answer (an upgrade-less 1xx): it
        // still takes more than the per-host limit of 8.
        admission.markMultiplexing("h2.example:443")
        admission.markSerial("h2.example:443")
        #expect(admission.knowsProtocol(of: "h2.example:443"))
        #expect(tasks(Array(repeating: 0.5, count: 20), manager: manager)
            .allSatisfy { admission.admit($0, key: "h2.example:443", mayMultiplex: true) })
    }

    /// Requests that cannot multiplex (http, HTTP/1.1 only, a proxy) are never held at six, and an
    /// unlimited session still holds an https host of unknown protocol at six.
    @Test func onlyRequestsThatMayMultiplexProbe() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 10)
        let plain = tasks(Array(repeating: 0.5, count: 10), manager: manager)
        #expect(plain.allSatisfy { admission.admit($0, key: "h1.example:80", mayMultiplex: false) })
        #expect(!admission.isProbing)

        let unlimited = HostAdmission(limit: 0)
        let burst = tasks(Array(repeating: 0.5, count: 8), manager: manager)
        #expect(burst.map { unlimited.admit($0, key: "h2.example:443", mayMultiplex: true) }
            == Array(repeating: true, count: 6) + [false, false])
        // A probe that failed before any answer frees its slot: the next waiting task probes in its place.
        let host = unlimited.release(burst[0])
        #expect(host == "h2.example:443")
        #expect(unlimited.next(for: "h2.example:443")?.taskIdentifier == burst[6].taskIdentifier)
        #expect(unlimited.next(for: "h2.example:443") == nil)
        unlimited.markSerial("h2.example:443")
        #expect(unlimited.next(for: "h2.example:443")?.taskIdentifier == burst[7].taskIdentifier)
    }

    /// The protocol of at most 4,096 hosts is remembered: one more and the session forgets them (and
    /// finds each one's protocol again), so a session meeting many hosts stays bounded.
    @Test func rememberedHostsAreBounded() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 10)
        #expect(HostAdmission.rememberedHosts == 4_096)
        for index in 0..<4_096 { admission.markSerial("h\(index).example:443") }
        #expect(admission.knowsProtocol(of: "h0.example:443"))
        #expect(admission.knowsProtocol(of: "h4095.example:443"))
        admission.markSerial("h4096.example:443")
        #expect(!admission.knowsProtocol(of: "h0.example:443"))
        #expect(admission.knowsProtocol(of: "h4096.example:443"))
        // Forgotten: the host is probed again (six at a time).
        let again = tasks(Array(repeating: 0.5, count: 7), manager: manager)
        #expect(again.map { admission.admit($0, key: "h0.example:443", mayMultiplex: true) }
            == Array(repeating: true, count: 6) + [false])
    }

    @Test func hostsAreCountedSeparately() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 1)
        let all = tasks([0.5, 0.5, 0.5], manager: manager)
        #expect(admission.admit(all[0], key: "a.example:80"))
        #expect(admission.admit(all[1], key: "b.example:80"))
        #expect(!admission.admit(all[2], key: "a.example:80"))
        #expect(admission.release(all[1]) == nil)  // nothing waits for b
        #expect(admission.release(all[0]) == "a.example:80")
        #expect(admission.next(for: "a.example:80") === all[2])
        // No limit, or no host: nothing waits.
        let unlimited = HostAdmission(limit: 0)
        #expect(all.map { unlimited.admit($0, key: "a.example:80") } == [true, true, true])
        let limited = HostAdmission(limit: 1)
        #expect(all.map { limited.admit($0, key: nil) } == [true, true, true])
    }

    @Test func suspendedWaitingTasksKeepTheirPlaceAndCancelledOnesLeave() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 1)
        let all = tasks([0.5, 0.9, 0.5, 0.1], manager: manager)
        #expect(admission.admit(all[0], key: "h:80"))
        for task in all.dropFirst() { #expect(!admission.admit(task, key: "h:80")) }
        setState(all[1], .suspended)
        #expect(admission.waitingHost(of: all[2]) == "h:80")
        #expect(admission.removeWaiting(all[2]))
        #expect(!admission.removeWaiting(all[2]))
        #expect(admission.waitingHost(of: all[2]) == nil)
        #expect(admission.release(all[0]) == "h:80")
        // The suspended high-priority task is skipped, not lost.
        #expect(admission.next(for: "h:80") === all[3])
        #expect(admission.next(for: "h:80") == nil)
        #expect(admission.release(all[3]) == "h:80")
        #expect(admission.next(for: "h:80") == nil)
        setState(all[1], .running)
        #expect(admission.next(for: "h:80") === all[1])
        #expect(!admission.hasWaiting)
    }

    @Test func multiplexingHostsAndInvalidationReleaseEveryWaitingTask() {
        let manager = makeManager()
        let admission = HostAdmission(limit: 1)
        let all = tasks([0.5, 0.5, 0.5, 0.2, 0.8], manager: manager)
        #expect(admission.admit(all[0], key: "h:443"))
        #expect(!admission.admit(all[1], key: "h:443"))
        #expect(!admission.admit(all[2], key: "h:443"))
        admission.markMultiplexing("h:443")
        #expect(admission.next(for: "h:443") === all[1])
        #expect(admission.next(for: "h:443") === all[2])
        #expect(admission.admit(all[3], key: "h:443"))

        #expect(admission.admit(all[4], key: "other:80"))
        #expect(!admission.admit(all[3], key: "other:80"))
        #expect(admission.removeAllWaiting().map(\.taskIdentifier) == [all[3].taskIdentifier])
        #expect(!admission.hasWaiting)
    }

    @Test func keysAreHostAndPortOrTheProxy() {
        func key(_ url: String, proxy: String?) -> String? {
            AdmissionTarget(url: URL(string: url)!, proxy: proxy)?.key
        }
        #expect(key("http://Example.com/a", proxy: nil) == "example.com:80")
        #expect(key("https://example.com/a", proxy: nil) == "example.com:443")
        #expect(key("http://127.0.0.1:8080/", proxy: nil) == "127.0.0.1:8080")
        #expect(key("http://a/", proxy: "http://proxy:3128") == "http://proxy:3128")
        #expect(key("file:///tmp/x", proxy: nil) == nil)
    }
}

@Suite("Task priority on the wire")
struct TaskPriorityWireTests {
    /// Runs a GET for `path` with `priority` to completion and returns its status.
    private func get(_ manager: URLSessionManager, _ url: URL, priority: Float) async -> Int? {
        await withCheckedContinuation { continuation in
            let task = manager.dataTask(with: URLRequest(url: url)) { response, _, _ in
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode)
            }
            task.priority = priority
            task.resume()
        }
    }

    @Test func priorityTravelsAsTheHTTP2StreamWeight() async throws {
        let server = try H2CPriorityRecorder()
        defer { server.stop() }
        let manager = makeManager()
        manager.httpVersion = .http2
        defer { manager.invalidateSession(cancelingTasks: true) }

        // The first request upgrades the connection (its stream 1 carries no frame of its own); the next
        // ones are HEADERS frames on the same connection.
        #expect(await get(manager, server.url("/upgrade"), priority: 0.5) == 200)
        #expect(await get(manager, server.url("/high"), priority: 1) == 200)
        #expect(await get(manager, server.url("/low"), priority: 0) == 200)
        #expect(await get(manager, server.url("/quarter"), priority: URLSessionTask.lowPriority) == 200)
        #expect(await get(manager, server.url("/default"), priority: URLSessionTask.defaultPriority) == 200)
        #expect(await get(manager, server.url("/three-quarters"), priority: URLSessionTask.highPriority) == 200)

        #expect(server.streams.map(\.identifier) == [1, 3, 5, 7, 9, 11])
        // Default priority sets no weight: libcurl sends no priority block, the server assumes 16.
        #expect(server.streams.map(\.weight) == [nil, 256, 1, 9, nil, 136])
    }
}
