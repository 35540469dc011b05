import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequestSerializer {
    /// A request serializer's settings as one value (AsyncHTTPClient's `HTTPClient.Configuration` is the
    /// model): read ``HTTPRequestSerializer/settings`` for a consistent snapshot, assign it to apply a
    /// whole value, or change several at once with ``HTTPRequestSerializer/updateSettings(_:)``. Each
    /// setting is also a serializer property under its AFNetworking name.
    ///
    /// Threading: a value; the serializer keeps it behind its lock.
    public struct Settings: Sendable {
        /// The encoding of form bodies (and of the query text a custom serialization returns). Default UTF-8.
        public var stringEncoding: String.Encoding = .utf8
        /// The methods whose parameters go into the URL's query rather than the body, stored upper-cased.
        /// Default `["GET", "HEAD", "DELETE"]`.
        public var httpMethodsEncodingParametersInURI: Set<String> {
            get { methodsEncodingParametersInURI }
            set { methodsEncodingParametersInURI = Set(newValue.map { $0.uppercased() }) }
        }

        private var methodsEncodingParametersInURI = FormURLEncoding.defaultMethodsEncodingParametersInURI

        /// Replaces the built-in query-string rules when set (nil: AFNetworking's rules).
        public var queryStringSerialization: QueryStringSerialization?

        /// The request properties applied to requests built by
        /// ``HTTPRequestSerializer/request(method:urlString:parameters:)``, each only once set (nil: the
        /// request keeps `URLRequest`'s default).
        public var allowsCellularAccess: Bool?
        /// See ``allowsCellularAccess``.
        public var cachePolicy: URLRequest.CachePolicy?
        /// See ``allowsCellularAccess``.
        public var httpShouldHandleCookies: Bool?
        /// See ``allowsCellularAccess``.
        public var httpShouldUsePipelining: Bool?
        /// See ``allowsCellularAccess``.
        public var networkServiceType: URLRequest.NetworkServiceType?
        /// See ``allowsCellularAccess``.
        public var timeoutInterval: TimeInterval?

        /// AFNetworking's defaults, as above.
        public init() {}
    }
}
