// Reachability against real kernel state: network namespaces with veth pairs, driven with `ip`, and
// af-reachability-probe running NetworkReachabilityManagers inside them (a namespace applies per
// thread, so each scenario runs in a process started with `ip netns exec`).
import AFNetworking
import Foundation
import Synchronization
import Testing

/// AFNetworking's raw values as the probe prints them (an Ethernet veth and loopback report WiFi).
private let viaWiFi = NetworkReachabilityStatus.reachableViaWiFi.rawValue
private let notReachable = NetworkReachabilityStatus.notReachable.rawValue

/// Root and iproute2 are needed to create namespaces.
private let canCreateNamespaces = getuid() == 0 && FileManager.default.isExecutableFile(atPath: NamespaceLab.ip)

@Suite(.serialized, .enabled(if: canCreateNamespaces, "needs root and /usr/sbin/ip"))
struct ReachabilityNamespaceTests {
    /// Admin down is immediate; carrier changes go through the kernel's linkwatch, which may hold an
    /// event for up to a second after the previous one, so "up" and peer-carrier steps get 2 s.
    static let promptly: Duration = .seconds(1)
    static let throughLinkwatch: Duration = .seconds(2)

    @Test func sharedRemoteAndPeerFollowLinksRoutesAndCarrierWithoutSendingOrPolling() async throws {
        let lab = try await NamespaceLab.make(tag: "r")
        defer { lab.destroy() }
        let remote = "198.19.0.10"
        let txBefore = try await lab.transmittedPackets()

        let probe = try await ReachabilityProbe.start(namespace: lab.inside, targets: [
            "shared", "address=\(remote)", "address=\(lab.peerAddress)", "domain=localhost", "address=0.0.0.0",
        ])
        defer { probe.stop() }
        let labels = ["shared", "address=\(remote)", "address=\(lab.peerAddress)"]

        // Reachable within 1 s of start, through the veth, an Ethernet kind reported as WiFi.
        for label in labels {
            let first = try await probe.waitForStatus(label, index: 0, within: Self.promptly, after: probe.readyAt)
            #expect(first.status == viaWiFi, "\(label)")
            #expect(first.interface == lab.insideInterface, "\(label)")
            #expect(first.kind == "wiredEthernet", "\(label)")
        }
        let localhost = try await probe.waitForStatus("domain=localhost", index: 0, within: Self.promptly, after: probe.readyAt)
        #expect(localhost.status == viaWiFi && localhost.interface == "lo" && localhost.kind == "loopback")

        // Idle: no change for 5 s, so no CPU (a polling loop would accumulate ticks).
        let ticks = try await probe.cpuTicks(over: .seconds(5))
        print("af-reachability-probe idle CPU over 5 s: \(ticks) ticks (utime+stime, \(sysconf(Int32(_SC_CLK_TCK))) per second)")
        #expect(ticks <= 1)

        // Our veth administratively down: everything unreachable within 1 s.
        var mark = ContinuousClock.now
        try await lab.inNamespace("link", "set", lab.insideInterface, "down")
        for label in labels { #expect(try await probe.waitForStatus(label, index: 1, within: Self.promptly, after: mark).status == notReachable) }

        // Up again: the peer's subnet route comes back with the link; the default route (removed by the
        // kernel with the link) comes back when re-added, as a DHCP client would.
        mark = .now
        try await lab.inNamespace("link", "set", lab.insideInterface, "up")
        #expect(try await probe.waitForStatus("address=\(lab.peerAddress)", index: 2, within: Self.throughLinkwatch, after: mark).status == viaWiFi)
        mark = .now
        try await lab.inNamespace("route", "replace", "default", "via", lab.peerAddress)
        for label in ["shared", "address=\(remote)"] {
            #expect(try await probe.waitForStatus(label, index: 2, within: Self.promptly, after: mark).status == viaWiFi)
        }

        // No default route: the remote address and any-route go unreachable; the peer stays reachable.
        mark = .now
        try await lab.inNamespace("route", "del", "default")
        for label in ["shared", "address=\(remote)"] {
            #expect(try await probe.waitForStatus(label, index: 3, within: Self.promptly, after: mark).status == notReachable)
        }
        mark = .now
        try await lab.inNamespace("route", "add", "default", "via", lab.peerAddress)
        for label in ["shared", "address=\(remote)"] {
            #expect(try await probe.waitForStatus(label, index: 4, within: Self.promptly, after: mark).status == viaWiFi)
        }

        // The peer's end down: our veth loses carrier (routes stay, flagged linkdown): unreachable.
        mark = .now
        try await lab.inPeer("link", "set", lab.peerInterface, "down")
        #expect(try await probe.waitForStatus("shared", index: 5, within: Self.throughLinkwatch, after: mark).status == notReachable)
        #expect(try await probe.waitForStatus("address=\(remote)", index: 5, within: Self.throughLinkwatch, after: mark).status == notReachable)
        #expect(try await probe.waitForStatus("address=\(lab.peerAddress)", index: 3, within: Self.throughLinkwatch, after: mark).status == notReachable)
        // Every label sees the carrier go before it comes back (a label still evaluating the first change
        // when the second arrives would see no change at all, and its history would end short).
        #expect(try await probe.waitForStatus("address=0.0.0.0", index: 5, within: Self.throughLinkwatch, after: mark).status == notReachable)
        mark = .now
        try await lab.inPeer("link", "set", lab.peerInterface, "up")
        #expect(try await probe.waitForStatus("shared", index: 6, within: Self.throughLinkwatch, after: mark).status == viaWiFi)
        #expect(try await probe.waitForStatus("address=\(remote)", index: 6, within: Self.throughLinkwatch, after: mark).status == viaWiFi)
        #expect(try await probe.waitForStatus("address=\(lab.peerAddress)", index: 4, within: Self.throughLinkwatch, after: mark).status == viaWiFi)
        #expect(try await probe.waitForStatus("address=0.0.0.0", index: 6, within: Self.throughLinkwatch, after: mark).status == viaWiFi)

        // Once per change, block then notification, in order: the whole history, nothing extra.
        try await Task.sleep(for: .milliseconds(500))
        #expect(probe.deliveries("shared") == ["block 2", "notification 2", "block 0", "notification 0", "block 2", "notification 2",
                                               "block 0", "notification 0", "block 2", "notification 2", "block 0", "notification 0",
                                               "block 2", "notification 2"])
        #expect(probe.deliveries("address=\(remote)") == probe.deliveries("shared"))
        // AFNetworking's zero address given explicitly is the IPv4 default route, like shared here.
        #expect(probe.deliveries("address=0.0.0.0") == probe.deliveries("shared"))
        #expect(probe.deliveries("address=\(lab.peerAddress)") == ["block 2", "notification 2", "block 0", "notification 0",
                                                                   "block 2", "notification 2", "block 0", "notification 0",
                                                                   "block 2", "notification 2"])
        #expect(probe.deliveries("domain=localhost") == ["block 2", "notification 2"])

        // Decided from kernel state only: the veth sent nothing (IPv6, which would solicit routers, is off).
        #expect(try await lab.transmittedPackets() == txBefore)
    }

    @Test func loopbackOnlyNamespaceReachesOnlyItself() async throws {
        let lab = try await NamespaceLab.make(tag: "l", withPeer: false)
        defer { lab.destroy() }
        let probe = try await ReachabilityProbe.start(namespace: lab.inside, targets: [
            "shared", "address=198.19.0.10", "address=127.0.0.1", "domain=localhost", "domain=afr-no-such-host.invalid",
        ])
        defer { probe.stop() }

        for label in ["shared", "address=198.19.0.10", "domain=afr-no-such-host.invalid"] {
            let first = try await probe.waitForStatus(label, index: 0, within: Self.promptly, after: probe.readyAt)
            #expect(first.status == notReachable, "\(label)")
            #expect(first.interface == "-", "\(label)")
        }
        for label in ["address=127.0.0.1", "domain=localhost"] {
            let first = try await probe.waitForStatus(label, index: 0, within: Self.promptly, after: probe.readyAt)
            #expect(first.status == viaWiFi, "\(label)")
            #expect(first.interface == "lo" && first.kind == "loopback", "\(label)")
        }

        // Loopback itself down and up.
        var mark = ContinuousClock.now
        try await lab.inNamespace("link", "set", "lo", "down")
        #expect(try await probe.waitForStatus("address=127.0.0.1", index: 1, within: Self.promptly, after: mark).status == notReachable)
        #expect(try await probe.waitForStatus("domain=localhost", index: 1, within: Self.promptly, after: mark).status == notReachable)
        mark = .now
        try await lab.inNamespace("link", "set", "lo", "up")
        #expect(try await probe.waitForStatus("address=127.0.0.1", index: 2, within: Self.throughLinkwatch, after: mark).status == viaWiFi)
        #expect(try await probe.waitForStatus("domain=localhost", index: 2, within: Self.throughLinkwatch, after: mark).status == viaWiFi)

        try await Task.sleep(for: .milliseconds(500))
        #expect(probe.isRunning, "an unresolvable name must not crash the process")
        #expect(probe.deliveries("domain=afr-no-such-host.invalid") == ["block 0", "notification 0"])
        #expect(probe.deliveries("shared") == ["block 0", "notification 0"])
    }

    @Test func anIPv6DefaultRouteIsAnyRouteToo() async throws {
        let lab = try await NamespaceLab.make(tag: "6", ipv6: true)
        defer { lab.destroy() }
        try await lab.inNamespace("route", "del", "default")
        let remote = "2001:2:0:ff::10"
        let probe = try await ReachabilityProbe.start(namespace: lab.inside, targets: [
            "shared", "address=\(remote)", "address=\(lab.peerAddress6)", "address=::",
        ])
        defer { probe.stop() }
        // Only the IPv4 default route was removed and there is no IPv6 one yet.
        #expect(try await probe.waitForStatus("shared", index: 0, within: Self.promptly, after: probe.readyAt).status == notReachable)
        #expect(try await probe.waitForStatus("address=\(remote)", index: 0, within: Self.promptly, after: probe.readyAt).status == notReachable)
        #expect(try await probe.waitForStatus("address=::", index: 0, within: Self.promptly, after: probe.readyAt).status == notReachable)
        let peer = try await probe.waitForStatus("address=\(lab.peerAddress6)", index: 0, within: Self.promptly, after: probe.readyAt)
        #expect(peer.status == viaWiFi && peer.interface == lab.insideInterface && peer.kind == "wiredEthernet")

        var mark = ContinuousClock.now
        try await lab.inNamespace("-6", "route", "add", "default", "via", lab.peerAddress6)
        for label in ["shared", "address=\(remote)", "address=::"] {
            let status = try await probe.waitForStatus(label, index: 1, within: Self.promptly, after: mark)
            #expect(status.status == viaWiFi && status.interface == lab.insideInterface, "\(label)")
        }
        mark = .now
        try await lab.inNamespace("-6", "route", "del", "default")
        for label in ["shared", "address=\(remote)", "address=::"] {
            #expect(try await probe.waitForStatus(label, index: 2, within: Self.promptly, after: mark).status == notReachable, "\(label)")
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(probe.deliveries("address=\(lab.peerAddress6)") == ["block 2", "notification 2"])
    }

    @Test func aNewLabLeavesTheLiveLabsOfThisProcessAlone() async throws {
        // Each lab deletes the namespaces of dead test processes first. With a tag that is a digit, the
        // name afr<pid>7a once read as the dead process <pid>7: a lab made by the suite running in
        // parallel (ConnectivityNamespaceTests) deleted this suite's IPv6 lab under its test.
        #expect(NamespaceLab.owner(ofNamespace: "afr4242-7a") == 4242)
        #expect(NamespaceLab.owner(ofNamespace: "afr42427a") == nil)
        #expect(NamespaceLab.owner(ofNamespace: "other4242-7a") == nil)
        let first = try await NamespaceLab.make(tag: "7")
        defer { first.destroy() }
        await #expect(throws: NamespaceLab.LabError.self) { try await NamespaceLab.make(tag: "7") }
        let second = try await NamespaceLab.make(tag: "8", withPeer: false)
        defer { second.destroy() }
        let names = try NamespaceLab.run(["netns", "list"]).split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        #expect(names.contains(first.inside) && names.contains(first.peer ?? "-") && names.contains(second.inside))
        try await first.waitForCarrier()
    }

    @Test func aCellularNamedInterfaceReportsWWAN() async throws {
        // Modem drivers that set no DEVTYPE are recognised by name (wwan*, rmnet*, ccmni*).
        let lab = try await NamespaceLab.make(tag: "w", insideInterfaceName: "wwan\(getpid())")
        defer { lab.destroy() }
        let probe = try await ReachabilityProbe.start(namespace: lab.inside, targets: ["shared"])
        defer { probe.stop() }
        let first = try await probe.waitForStatus("shared", index: 0, within: Self.promptly, after: probe.readyAt)
        #expect(first.status == NetworkReachabilityStatus.reachableViaWWAN.rawValue)
        #expect(first.interface == lab.insideInterface)
        #expect(first.kind == "cellular")
    }

    @Test func aDomainManagerResolvesAgainAfterANetworkChange() async throws {
        let lab = try await NamespaceLab.make(tag: "d")
        defer { lab.destroy() }
        // `ip netns exec` bind-mounts /etc/netns/<name>/hosts over /etc/hosts inside the namespace.
        let hosts = try lab.namespaceEtcFile("hosts")
        try "127.0.0.1 localhost\n\(lab.peerAddress) afr-peer.test\n".write(toFile: hosts, atomically: false, encoding: .utf8)
        try await lab.inNamespace("route", "del", "default")

        let probe = try await ReachabilityProbe.start(namespace: lab.inside, targets: ["domain=afr-peer.test"])
        defer { probe.stop() }
        let first = try await probe.waitForStatus("domain=afr-peer.test", index: 0, within: Self.promptly, after: probe.readyAt)
        #expect(first.status == viaWiFi && first.interface == lab.insideInterface)

        // The name now points off-link, where there is no route; any network change makes the manager
        // resolve again (rewritten in place: the bind mount keeps the file's inode).
        try "127.0.0.1 localhost\n198.19.7.7 afr-peer.test\n".write(toFile: hosts, atomically: false, encoding: .utf8)
        let mark = ContinuousClock.now
        try await lab.inNamespace("address", "add", "198.18.250.1/32", "dev", "lo")
        #expect(try await probe.waitForStatus("domain=afr-peer.test", index: 1, within: Self.promptly, after: mark).status == notReachable)
    }
}
