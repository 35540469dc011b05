import AFProtocols
import Foundation
import Testing
@testable import AFReachability

@Suite struct InterfaceKindTests {
    typealias Kind = ReachabilityInterface.Kind

    @Test func classifiesFromSysfsFacts() {
        #expect(Kind.classify(name: "lo", linkType: 772, deviceType: nil, hasWirelessDirectory: false) == .loopback)
        #expect(Kind.classify(name: "wlp2s0", linkType: 1, deviceType: "wlan", hasWirelessDirectory: false) == .wifi)
        #expect(Kind.classify(name: "wlan0", linkType: 1, deviceType: nil, hasWirelessDirectory: true) == .wifi)
        #expect(Kind.classify(name: "wwan0", linkType: 519, deviceType: "wwan", hasWirelessDirectory: false) == .cellular)
        #expect(Kind.classify(name: "rmnet_data0", linkType: 530, deviceType: nil, hasWirelessDirectory: false) == .cellular)
        #expect(Kind.classify(name: "eth0", linkType: 1, deviceType: nil, hasWirelessDirectory: false) == .wiredEthernet)
        #expect(Kind.classify(name: "veth1", linkType: 1, deviceType: nil, hasWirelessDirectory: false) == .wiredEthernet)
        #expect(Kind.classify(name: "tun0", linkType: 65534, deviceType: nil, hasWirelessDirectory: false) == .other)
        #expect(Kind.classify(name: "x", linkType: nil, deviceType: nil, hasWirelessDirectory: false) == .other)
    }

    @Test func mapsKindsToAFNetworkingStatuses() {
        #expect(Kind.cellular.reachableStatus == .reachableViaWWAN)
        #expect(Kind.wifi.reachableStatus == .reachableViaWiFi)
        #expect(Kind.wiredEthernet.reachableStatus == .reachableViaWiFi)
        #expect(Kind.loopback.reachableStatus == .reachableViaWiFi)
        #expect(Kind.other.reachableStatus == .reachableViaWiFi)
    }

    @Test func readsTypeUeventAndWirelessDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("afr-sysfs-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        func make(_ name: String, type: String, uevent: String, wireless: Bool = false) throws {
            let directory = root + "/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try type.write(toFile: directory + "/type", atomically: true, encoding: .utf8)
            try uevent.write(toFile: directory + "/uevent", atomically: true, encoding: .utf8)
            if wireless { try FileManager.default.createDirectory(atPath: directory + "/wireless", withIntermediateDirectories: true) }
        }
        try make("wlan0", type: "1\n", uevent: "INTERFACE=wlan0\nIFINDEX=3\n", wireless: true)
        try make("wlp1s0", type: "1\n", uevent: "DEVTYPE=wlan\nINTERFACE=wlp1s0\n")
        try make("mbim0", type: "519\n", uevent: "DEVTYPE=wwan\nINTERFACE=mbim0\n")
        try make("enp3s0", type: "1\n", uevent: "INTERFACE=enp3s0\nIFINDEX=2\n")
        try make("lo", type: "772\n", uevent: "INTERFACE=lo\n")
        #expect(Kind.read(interfaceName: "wlan0", sysfsRoot: root) == .wifi)
        #expect(Kind.read(interfaceName: "wlp1s0", sysfsRoot: root) == .wifi)
        #expect(Kind.read(interfaceName: "mbim0", sysfsRoot: root) == .cellular)
        #expect(Kind.read(interfaceName: "enp3s0", sysfsRoot: root) == .wiredEthernet)
        #expect(Kind.read(interfaceName: "lo", sysfsRoot: root) == .loopback)
        #expect(Kind.read(interfaceName: "missing0", sysfsRoot: root) == .other)
        #expect(Kind.read(interfaceName: "../wlan0", sysfsRoot: root) == .other)
    }

    @Test func theRealLoopbackIsLoopback() {
        #expect(Kind.read(interfaceName: "lo") == .loopback)
    }

    @Test func findsDevtypeAmongUeventLines() {
        #expect(Kind.deviceType(inUevent: "INTERFACE=x\nDEVTYPE=bridge\n") == "bridge")
        #expect(Kind.deviceType(inUevent: "INTERFACE=x\n") == nil)
    }
}
