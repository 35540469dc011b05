import AFProtocols
import Foundation

/// The network interface a reachable target is reached through (beyond AFNetworking, which exposes
/// only the WWAN/WiFi distinction).
public struct ReachabilityInterface: Hashable, Sendable, CustomStringConvertible {
    /// What kind of link an interface is, read from `/sys/class/net/<name>/`.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// An 802.11 interface (a `wireless/` directory or `DEVTYPE=wlan`).
        case wifi
        /// Ethernet, including virtual Ethernet (veth, bridges): link type 1 without a wireless marker.
        case wiredEthernet
        /// A mobile broadband interface (`DEVTYPE=wwan`, or named `wwan*`, `rmnet*`, `ccmni*`).
        case cellular
        /// The loopback interface (link type 772).
        case loopback
        /// Anything else (tunnels, PPP, ...).
        case other

        public var description: String { rawValue }

        /// The AFNetworking status a reachable target has over this kind: WWAN for cellular, WiFi for
        /// everything else (Ethernet reports WiFi, as on macOS).
        public var reachableStatus: NetworkReachabilityStatus {
            self == .cellular ? .reachableViaWWAN : .reachableViaWiFi
        }
    }

    /// The interface name, e.g. "eth0" or "wlan0".
    public let name: String
    /// The kernel interface index.
    public let index: Int32
    /// The kind of link.
    public let kind: Kind

    /// Creates a value; the manager builds these from kernel state.
    public init(name: String, index: Int32, kind: Kind) {
        self.name = name
        self.index = index
        self.kind = kind
    }

    public var description: String { "\(name) (\(kind))" }
}

extension ReachabilityInterface.Kind {
    /// ARPHRD_LOOPBACK and ARPHRD_ETHER from <linux/if_arp.h>.
    private static let loopbackLinkType = 772
    private static let ethernetLinkType = 1
    /// Name prefixes of cellular modems whose drivers do not set DEVTYPE=wwan.
    private static let cellularNamePrefixes = ["wwan", "rmnet", "ccmni"]

    /// Classifies from what sysfs says: the link `type`, the `DEVTYPE` of `uevent`, and whether a
    /// `wireless/` (or `phy80211/`) directory exists.
    static func classify(name: String, linkType: Int?, deviceType: String?, hasWirelessDirectory: Bool) -> Self {
        if linkType == loopbackLinkType { return .loopback }
        if hasWirelessDirectory || deviceType == "wlan" { return .wifi }
        if deviceType == "wwan" || cellularNamePrefixes.contains(where: { name.hasPrefix($0) }) { return .cellular }
        if linkType == ethernetLinkType { return .wiredEthernet }
        return .other
    }

    /// Reads `<sysfsRoot>/<name>/type`, `uevent` and `wireless/` and classifies the interface.
    /// Missing files are treated as unknown facts, never as errors.
    static func read(interfaceName name: String, sysfsRoot: String = "/sys/class/net") -> Self {
        // A name with a slash or dot-dot would escape the sysfs directory; the kernel never makes one.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return .other }
        let directory = sysfsRoot + "/" + name
        let linkType = (try? String(contentsOfFile: directory + "/type", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let deviceType = (try? String(contentsOfFile: directory + "/uevent", encoding: .utf8))
            .flatMap(Self.deviceType(inUevent:))
        let fileManager = FileManager.default
        let hasWireless = fileManager.fileExists(atPath: directory + "/wireless")
            || fileManager.fileExists(atPath: directory + "/phy80211")
        return classify(name: name, linkType: linkType, deviceType: deviceType, hasWirelessDirectory: hasWireless)
    }

    /// The value of the `DEVTYPE=` line of a uevent file, if any.
    static func deviceType(inUevent text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("DEVTYPE=") {
            return String(line.dropFirst("DEVTYPE=".count))
        }
        return nil
    }
}
