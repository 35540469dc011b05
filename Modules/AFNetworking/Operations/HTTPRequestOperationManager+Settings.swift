import AFCore
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequestOperationManager {
    /// An operation manager's settings as one value (AsyncHTTPClient's `HTTPClient.Configuration` is the
    /// model): read ``HTTPRequestOperationManager/settings`` for a consistent snapshot, assign it to apply a
    /// whole value, or change several at once with ``HTTPRequestOperationManager/updateSettings(_:)``.
    /// Each setting is also a manager property under its AFNetworking name; operations made afterwards
    /// take them.
    ///
    /// Threading: a value; the manager keeps it behind its lock.
    public struct Settings: Sendable {
        /// Builds every request (parameters, default headers).
        public var requestSerializer: any HTTPRequestSerializing
        /// Given to every operation made afterwards.
        public var responseSerializer: any ResponseSerializing
        /// Builds multipart POST bodies; nil (the default here) makes the multipart `post` fail with
        /// `URLError(.unsupportedURL)`.
        public var multipartFormRequestBuilder: (any MultipartFormRequestBuilding)?
        /// The trust policy given to every operation (nil, the default here: libcurl's verification).
        public var securityPolicy: (any ServerTrustEvaluating)?
        /// A reachability monitor the app can consult (not started by the manager).
        public var reachabilityManager: (any NetworkReachabilityMonitoring)?
        /// The credential every operation answers authentication challenges with.
        public var credential: URLCredential?
        /// Whether operations consult the credential storage (default true).
        public var shouldUseCredentialStorage = true
        /// Where success and failure closures run; nil (the default) means the main queue.
        public var completionQueue: DispatchQueue?
        /// The group success and failure closures run in; nil (the default) means a private group.
        public var completionGroup: DispatchGroup?
        /// The session configuration of every operation (nil, the default: `URLSessionConfiguration.default`).
        /// Kept as a copy: changing the object afterwards changes nothing here.
        public var sessionConfiguration: URLSessionConfiguration? {
            get { sessionConfigurationCopy?.make() }
            set { sessionConfigurationCopy = newValue.map(URLSessionConfiguration.Snapshot.init) }
        }

        /// The copy operations and the shared session are made from (nil: the default configuration).
        private(set) var sessionConfigurationCopy: URLSessionConfiguration.Snapshot?

        /// The given serializers and the defaults above.
        public init(requestSerializer: any HTTPRequestSerializing, responseSerializer: any ResponseSerializing) {
            self.requestSerializer = requestSerializer
            self.responseSerializer = responseSerializer
        }
    }
}
