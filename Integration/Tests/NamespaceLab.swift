// The network-namespace lab the reachability tests drive: namespaces and veth pairs made with `ip`,
// and the probe process that runs reachability managers inside them.
import AFNetworking
import AFTestHarness
import Foundation
import Synchronization
import Testing

/// Namespaces made for one test: `inside` (where the probe runs) and, with a peer, `peer`, joined by a
/// veth pair with addresses from 198.18.0.0/15 and a default route through the peer. Names are
/// afr<pid>-<tag><a|b|x|y>: the test process's pid, a dash that ends it, and a tag no other live lab of
/// the process has, so suites running in parallel never share a name. Namespaces left by dead test
/// processes are deleted first (the dash is what tells the pid from a tag that is a digit: without
/// it, afr<pid>6a read as the dead process <pid>6 and a lab made by a parallel suite deleted it).
///
/// Making a lab and changing its links run `ip` and wait for the kernel (a new veth's carrier takes about
/// a second), so the async API (``make(tag:withPeer:ipv6:insideInterfaceName:)``, ``inNamespace(_:)``,
/// ``waitForCarrier()``...) does that on a thread of its own: the tests run on the cooperative pool (a
/// thread per core), and two suites blocking it for a second at once stalled every other test's awaits
/// (a 10 ms sleep beside them woke up to 1.06 s late).
final class NamespaceLab: @unchecked Sendable {
    // @unchecked Sendable: a lab belongs to one test, which calls it one step at a time (each async
    // step is awaited before the next); its one mutable array is only touched by those steps.
    static let ip = "/usr/sbin/ip"
    private static let prefix = "afr"
    /// The tags of this process's labs not yet destroyed.
    private static let liveTags = Mutex<Set<String>>([])

    let inside: String
    let peer: String?
    let insideInterface: String
    let peerInterface: String
    let insideAddress = "198.18.0.1"
    let peerAddress = "198.18.0.2"
    /// From 2001:2::/48, the IPv6 benchmarking range (used when the lab has IPv6).
    let insideAddress6 = "2001:2::1"
    let peerAddress6 = "2001:2::2"
    private var etcDirectories: [String] = []
    private let tag: String

    /// `ipv6` keeps IPv6 on and adds 2001:2::1/64 and 2001:2::2/64 (without duplicate address
    /// detection, so they are usable at once); otherwise IPv6 is off inside.
    /// `insideInterfaceName` replaces the default afr<pid>-<tag>x (at most 15 characters).
    /// Throws `LabError.tagInUse` while another lab of this process has `tag`.
    init(tag: String, withPeer: Bool = true, ipv6: Bool = false, insideInterfaceName: String? = nil) throws {
        let base = "\(Self.prefix)\(getpid())-\(tag)"
        inside = base + "a"
        peer = withPeer ? base + "b" : nil
        insideInterface = insideInterfaceName ?? base + "x"
        peerInterface = base + "y"
        self.tag = tag
        // IFNAMSIZ: 15 characters and the terminating NUL.
        guard insideInterface.utf8.count <= 15, peerInterface.utf8.count <= 15 else {
            throw LabError.commandFailed("interface names over 15 characters: \(insideInterface), \(peerInterface)")
        }
        guard Self.liveTags.withLock({ $0.insert(tag).inserted }) else { throw LabError.tagInUse(tag) }
        Self.deleteStaleNamespaces()
        do {
            try Self.run(["netns", "add", inside])
            try Self.run(["-n", inside, "link", "set", "lo", "up"])
            if !ipv6 {
                // IPv6 off inside: its own router solicitations and DAD would make the packet count move.
                try Self.run(["netns", "exec", inside, "sh", "-c",
                              "echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 && echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6"])
            }
            guard let peer else { return }
            try Self.run(["netns", "add", peer])
            try Self.run(["link", "add", insideInterface, "netns", inside, "type", "veth",
                          "peer", "name", peerInterface, "netns", peer])
            try Self.run(["-n", inside, "address", "add", insideAddress + "/24", "dev", insideInterface])
            try Self.run(["-n", peer, "address", "add", peerAddress + "/24", "dev", peerInterface])
            if ipv6 {
                try Self.run(["-n", inside, "-6", "address", "add", insideAddress6 + "/64", "dev", insideInterface, "nodad"])
                try Self.run(["-n", peer, "-6", "address", "add", peerAddress6 + "/64", "dev", peerInterface, "nodad"])
            }
            try Self.run(["-n", peer, "link", "set", peerInterface, "up"])
            try Self.run(["-n", inside, "link", "set", insideInterface, "up"])
            try Self.run(["-n", inside, "route", "add", "default", "via", peerAddress])
            try waitForCarrierBlocking()
        } catch {
            destroy()
            throw error
        }
    }

    /// A new lab, made off the cooperative pool (see the type's note); the same arguments as `init`.
    static func make(tag: String, withPeer: Bool = true, ipv6: Bool = false, insideInterfaceName: String? = nil)
        async throws -> NamespaceLab {
        try await runBlocking {
            try NamespaceLab(tag: tag, withPeer: withPeer, ipv6: ipv6, insideInterfaceName: insideInterfaceName)
        }
    }

    /// Waits, off the cooperative pool, until the inside veth has its carrier (``waitForCarrierBlocking()``).
    func waitForCarrier() async throws {
        try await runBlocking { try self.waitForCarrierBlocking() }
    }

    /// Carrier reaches a new veth through the kernel's linkwatch, possibly a second later: scenarios
    /// start from a settled link.
    private func waitForCarrierBlocking() throws {
        let deadline = Date().addingTimeInterval(3)
        while true {
            let state = try Self.run(["netns", "exec", inside, "cat", "/sys/class/net/\(insideInterface)/operstate"])
            if state.hasPrefix("up") { return }
            guard Date() < deadline else { throw LabError.commandFailed("\(insideInterface) has no carrier: \(state)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Deletes the namespaces (which removes the veth pair) and their /etc/netns files, and frees the
    /// tag. Idempotent.
    func destroy() {
        for name in [inside, peer].compactMap({ $0 }) {
            _ = try? Self.run(["netns", "del", name])
        }
        for directory in etcDirectories { try? FileManager.default.removeItem(atPath: directory) }
        etcDirectories = []
        _ = Self.liveTags.withLock { $0.remove(tag) }
    }

    /// Runs `ip -n <inside> <arguments>` off the cooperative pool.
    func inNamespace(_ arguments: String...) async throws {
        let command = ["-n", inside] + arguments
        _ = try await runBlocking { try Self.run(command) }
    }

    /// Runs `ip -n <peer> <arguments>` off the cooperative pool.
    func inPeer(_ arguments: String...) async throws {
        guard let peer else { throw LabError.noPeer }
        let command = ["-n", peer] + arguments
        _ = try await runBlocking { try Self.run(command) }
    }

    /// Packets the inside veth has transmitted, from its kernel counters.
    func transmittedPackets() async throws -> Int {
        let command = ["netns", "exec", inside, "cat", "/sys/class/net/\(insideInterface)/statistics/tx_packets"]
        let text = try await runBlocking { try Self.run(command) }
        guard let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw LabError.unreadable(text) }
        return count
    }

    /// The path of /etc/netns/<inside>/<name>, which `ip netns exec` mounts over /etc/<name>.
    func namespaceEtcFile(_ name: String) throws -> String {
        let directory = "/etc/netns/\(inside)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        etcDirectories.append(directory)
        return directory + "/" + name
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LabError.commandFailed("ip \(arguments.joined(separator: " ")): \(message)")
        }
        return text
    }

    /// Namespaces named afr<pid>-<tag><a|b> whose pid is no longer running.
    private static func deleteStaleNamespaces() {
        guard let list = try? run(["netns", "list"]) else { return }
        for line in list.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard let pid = owner(ofNamespace: name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? run(["netns", "del", name])
            try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
        }
    }

    /// The pid in a lab's name, afr<pid>-<tag><a|b>; nil for any other name.
    static func owner(ofNamespace name: String) -> Int32? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, rest.dropFirst(digits.count).first == "-" else { return nil }
        return Int32(digits)
    }

    enum LabError: Error, CustomStringConvertible {
        case commandFailed(String)
        case unreadable(String)
        case noPeer
        case tagInUse(String)

        var description: String {
            switch self {
            case .commandFailed(let message): return message
            case .unreadable(let text): return "unreadable counter: \(text)"
            case .noPeer: return "this lab has no peer namespace"
            case .tagInUse(let tag): return "another live lab of this process has the tag \(tag)"
            }
        }
    }
}

/// Lines of a child's output with the time each arrived, fed by a reader thread.
final class LineCollector: Sendable {
    struct Line {
        let text: String
        let at: ContinuousClock.Instant
    }

    private let state = Mutex<(lines: [Line], partial: [UInt8])>(([], []))

    var snapshot: [Line] { state.withLock { $0.lines } }

    func feed(_ data: Data) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.partial += data
            while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                state.lines.append(Line(text: String(decoding: state.partial[..<newline], as: UTF8.self), at: now))
                state.partial.removeSubrange(...newline)
            }
        }
    }
}

/// af-reachability-probe running in a namespace; collects its lines with arrival times.
final class ReachabilityProbe: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant; the process and pipe are only used by
    // the one test that started the probe, a step at a time, and the lines live in a Sendable collector.
    struct Status {
        let status: Int
        let interface: String
        let kind: String
        let at: ContinuousClock.Instant
    }

    enum ProbeError: Error, CustomStringConvertible {
        case missingExecutable(String)
        case timedOut(String)
        case unreadableStat(String)

        var description: String {
            switch self {
            case .missingExecutable(let path): return "no probe at \(path); build with `swift build --build-tests`"
            case .timedOut(let what): return "timed out waiting for \(what)"
            case .unreadableStat(let text): return "unreadable /proc stat: \(text)"
            }
        }
    }

    private let process: Process
    private let input: Pipe
    private let collector = LineCollector()
    let pid: Int32
    let readyAt: ContinuousClock.Instant

    /// Starts the probe in `namespace` and waits, off the cooperative pool, until it is ready.
    static func start(namespace: String, targets: [String]) async throws -> ReachabilityProbe {
        try await runBlocking { try ReachabilityProbe(namespace: namespace, targets: targets) }
    }

    private init(namespace: String, targets: [String]) throws {
        // The probe is built next to the test bundle.
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = directory.appendingPathComponent("af-reachability-probe").path
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw ProbeError.missingExecutable(executable) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NamespaceLab.ip)
        process.arguments = ["netns", "exec", namespace, executable] + targets
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        self.process = process
        self.input = input
        let reader = output.fileHandleForReading
        let collected = collector
        Thread.detachNewThread {
            while true {
                let data = reader.availableData
                if data.isEmpty { return }
                collected.feed(data)
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if let ready = collected.snapshot.first(where: { $0.text.hasPrefix("ready ") }) {
                pid = Int32(ready.text.dropFirst(6)) ?? 0
                readyAt = ready.at
                break
            }
            guard ContinuousClock.now < deadline else {
                process.kill()
                throw ProbeError.timedOut("the probe to start")
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    var isRunning: Bool { process.isRunning }

    /// The index-th status delivered to `label`'s block, waiting until `within` after `after`.
    /// Async, with `Task.sleep` between looks: the tests run on the cooperative pool (about one thread
    /// per core), and a thread that sleeps there for seconds stalls every other test's awaits.
    func waitForStatus(_ label: String, index: Int, within limit: Duration, after start: ContinuousClock.Instant)
        async throws -> Status {
        let deadline = start + limit
        while true {
            let blocks = collector.snapshot.filter { $0.text.hasPrefix(label + " block ") }
            if blocks.count > index {
                let fields = blocks[index].text.split(separator: " ").map(String.init)
                let status = Status(status: Int(fields[2]) ?? -99, interface: fields[3], kind: fields[4], at: blocks[index].at)
                #expect(status.at <= deadline, "\(label) status #\(index) came \(status.at - start) after the action")
                print("reachability: \(label) status #\(index) = \(status.status) after \(status.at - start)")
                return status
            }
            guard ContinuousClock.now < deadline + .seconds(3) else {
                throw ProbeError.timedOut("\(label) status #\(index); lines: \(collector.snapshot.map(\.text))")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// `label`'s deliveries in order, as "block <status>" / "notification <status>".
    func deliveries(_ label: String) -> [String] {
        collector.snapshot.compactMap { line in
            guard line.text.hasPrefix(label + " ") else { return nil }
            let fields = line.text.dropFirst(label.count + 1).split(separator: " ")
            return fields.prefix(2).joined(separator: " ")
        }
    }

    /// utime + stime (clock ticks) the probe used while the test slept for `duration`.
    func cpuTicks(over duration: Duration) async throws -> Int {
        let before = try ticks()
        try await Task.sleep(for: duration)
        return try ticks() - before
    }

    private func ticks() throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        guard let close = text.lastIndex(of: ")") else { throw ProbeError.unreadableStat(text) }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw ProbeError.unreadableStat(text)
        }
        return user + system
    }

    /// Closes the probe's stdin (it exits on end of file), then makes sure it is gone.
    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { process.kill() }
        process.waitUntilExit()
    }
}

extension Process {
    /// Stops the process with SIGKILL and waits for it. Not `terminate()`: a child of the test process
    /// starts with the signals libdispatch blocks in its threads (SIGTERM among them) still blocked, so a
    /// server that never exits by itself would outlive the test.
    func kill() {
        guard isRunning else { return }
        _ = Glibc.kill(processIdentifier, SIGKILL)
        waitUntilExit()
    }
}
