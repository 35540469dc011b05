import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// A `connectionProxyDictionary` key: set it to `true` to take the proxies from the `http_proxy`,
    /// `https_proxy`, `all_proxy` and `no_proxy` environment variables (curl's rules) instead of the
    /// dictionary's other keys. The variables are read when the session is made.
    public static let environmentProxiesKey = "AFEnvironmentProxies"
}
