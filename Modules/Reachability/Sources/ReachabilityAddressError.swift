/// Why a ``NetworkReachabilityManager`` could not be created for an address given as text.
public enum ReachabilityAddressError: Error, Equatable, Sendable {
    /// The string is not a numeric IPv4 or IPv6 address (host names go to `init(domain:)`).
    case invalidAddress(String)
}
