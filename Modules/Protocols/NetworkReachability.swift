import Foundation

/// AFNetworking's reachability status (AFNetworkReachabilityStatus), with its raw values.
public enum NetworkReachabilityStatus: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Not yet determined (before monitoring starts).
    case unknown = -1
    /// No usable route.
    case notReachable = 0
    /// Reachable over a cellular (WWAN) interface.
    case reachableViaWWAN = 1
    /// Reachable over Wi-Fi or wired Ethernet (Ethernet reports this, as on macOS).
    case reachableViaWiFi = 2

    /// AFNetworking's string (AFStringFromNetworkReachabilityStatus): "Unknown", "Not Reachable",
    /// "Reachable via WWAN", "Reachable via WiFi".
    public var description: String {
        switch self {
        case .unknown: return "Unknown"
        case .notReachable: return "Not Reachable"
        case .reachableViaWWAN: return "Reachable via WWAN"
        case .reachableViaWiFi: return "Reachable via WiFi"
        }
    }

    /// Whether the status is one of the reachable ones.
    public var isReachable: Bool { self == .reachableViaWWAN || self == .reachableViaWiFi }
}

/// Monitors whether a target is reachable (AFNetworkReachabilityManager's surface), so a session can
/// hold one without importing AFReachability.
///
/// Threading: safe from any thread; the change closure runs on the monitor's delivery queue (the main
/// queue by default), in order.
public protocol NetworkReachabilityMonitoring: AnyObject, Sendable {
    /// The current status; ``NetworkReachabilityStatus/unknown`` until monitoring has started.
    var networkReachabilityStatus: NetworkReachabilityStatus { get }

    /// Starts delivering the current status, then every change.
    func startMonitoring()

    /// Stops delivery of changes (closure and notification).
    func stopMonitoring()

    /// Sets (or clears) the closure called with each status change.
    func setReachabilityStatusChangeBlock(_ block: (@Sendable (NetworkReachabilityStatus) -> Void)?)
}

extension NetworkReachabilityMonitoring {
    /// Whether the status is reachable by any interface.
    public var isReachable: Bool { networkReachabilityStatus.isReachable }
    /// Whether the status is reachable over WWAN.
    public var isReachableViaWWAN: Bool { networkReachabilityStatus == .reachableViaWWAN }
    /// Whether the status is reachable over Wi-Fi (or Ethernet).
    public var isReachableViaWiFi: Bool { networkReachabilityStatus == .reachableViaWiFi }
}

extension Notification.Name {
    /// Posted on each reachability change (AFNetworkingReachabilityDidChangeNotification): object = the
    /// monitor, userInfo[``NetworkingReachabilityNotificationStatusItem``] = the status raw value (`Int`).
    public static let networkingReachabilityDidChange = Notification.Name("com.alamofire.networking.reachability.change")
}

/// userInfo key of `Foundation/Notification/Name/networkingReachabilityDidChange`: the new status's raw value.
public let NetworkingReachabilityNotificationStatusItem = "AFNetworkingReachabilityNotificationStatusItem"
