// waitsForConnectivity against real kernel state: `af --wait-for-network` runs in a network namespace
// whose link is down, with the session's netlink reachability monitor; a Python HTTP server listens in
// the peer namespace. The link comes back up (and the default route, as a DHCP client would add it).
import AFNetworking
import Foundation
import Testing

private let canCreateNamespaces = getuid() == 0 && FileManager.default.isExecutableFile(atPath: NamespaceLab.ip)

@Suite(.serialized, .enabled(if: canCreateNamespaces, "needs root and /usr/sbin/ip"))
struct ConnectivityNamespaceTests {
    static let waitingLine = "af: the network is down; waiting for it"
    static let af = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("af").path

    /// A process run with `ip netns exec` whose output lines are collected as they come.
    private final class NamespacedProcess {
        let process = Process()
        let output = LineCollector()
        let errors = LineCollector()

        init(namespace: String, _ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: NamespaceLab.ip)
            process.arguments = ["netns", "exec", namespace] + arguments
            let outputPipe = Pipe(), errorPipe = Pipe()
            process.standardOutput = outputPipe
            process.standardError = errorPipe
            process.standardInput = FileHandle.nullDevice
            try process.run()
            for (pipe, collector) in [(outputPipe, output), (errorPipe, errors)] {
                let reader = pipe.fileHandleForReading
                Thread.detachNewThread {
                    while true {
                        let data = reader.availableData
                        if data.isEmpty { return }
                        collector.feed(data)
                    }
                }
            }
        }

        func lines(_ collector: LineCollector) -> [String] { collector.snapshot.map(\.text) }

        func waitForExit(within seconds: Double) async -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning {
                guard Date() < deadline else { return nil }
                try? await Task.sleep(for: .milliseconds(20))
            }
            try? await Task.sleep(for: .milliseconds(50))  // the last output
            return process.terminationStatus
        }

        func stop() { process.kill() }
    }

    /// Serves `hello.txt` from the peer namespace on the peer address, port 8080.
    private func startServer(_ lab: NamespaceLab, in directory: URL) async throws -> NamespacedProcess {
        try "hello from the peer\n".write(to: directory.appendingPathComponent("hello.txt"), atomically: true, encoding: .utf8)
        let server = try NamespacedProcess(namespace: lab.peer!, [
            "python3", "-u", "-m", "http.server", "8080", "--bind", lab.peerAddress, "--directory", directory.path,
        ])
        #expect(await waitUntil(10) { server.lines(server.output).contains { $0.hasPrefix("Serving HTTP") } })
        return server
    }

    @Test func aRequestMadeWhileTheLinkIsDownWaitsAndCompletesWhenItIsBack() async throws {
        let lab = try await NamespaceLab.make(tag: "c")
        defer { lab.destroy() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-wait-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await startServer(lab, in: directory)
        defer { server.stop() }

        try await lab.inNamespace("link", "set", lab.insideInterface, "down")
        let client = try NamespacedProcess(namespace: lab.inside, [
            Self.af, "get", "http://\(lab.peerAddress):8080/hello.txt", "--wait-for-network", "--max-time", "30",
        ])
        defer { client.stop() }
        #expect(await waitUntil(10) { client.lines(client.errors).contains(Self.waitingLine) })
        try await Task.sleep(for: .milliseconds(500))
        #expect(client.process.isRunning)

        try await lab.inNamespace("link", "set", lab.insideInterface, "up")
        try await lab.waitForCarrier()
        try await lab.inNamespace("route", "add", "default", "via", lab.peerAddress)
        #expect(await client.waitForExit(within: 15) == 0)
        #expect(client.lines(client.output) == ["hello from the peer"])
        #expect(client.lines(client.errors).filter { $0 == Self.waitingLine }.count == 1)
    }

    @Test func theWaitEndsWithMaxTime() async throws {
        let lab = try await NamespaceLab.make(tag: "t")
        defer { lab.destroy() }
        try await lab.inNamespace("link", "set", lab.insideInterface, "down")
        let started = ContinuousClock.now
        let client = try NamespacedProcess(namespace: lab.inside, [
            Self.af, "get", "http://\(lab.peerAddress):8080/hello.txt", "--wait-for-network", "--max-time", "2",
        ])
        defer { client.stop() }
        #expect(await client.waitForExit(within: 15) == 4)  // af's transport-failure code
        #expect(ContinuousClock.now - started >= .seconds(2))
        let errors = client.lines(client.errors)
        #expect(errors.filter { $0 == Self.waitingLine }.count == 1)
        #expect(errors.contains { $0.contains("-1001") }, "\(errors)")
    }

    @Test func withoutTheFlagADownLinkFailsAtOnce() async throws {
        let lab = try await NamespaceLab.make(tag: "n")
        defer { lab.destroy() }
        try await lab.inNamespace("link", "set", lab.insideInterface, "down")
        let client = try NamespacedProcess(namespace: lab.inside, [Self.af, "get", "http://\(lab.peerAddress):8080/hello.txt"])
        defer { client.stop() }
        #expect(await client.waitForExit(within: 10) == 4)
        #expect(!client.lines(client.errors).contains(Self.waitingLine))
    }
}
