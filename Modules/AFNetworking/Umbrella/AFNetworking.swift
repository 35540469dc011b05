// The umbrella: `import AFNetworking` gives every module, and this module wires AFNetworking's defaults.
@_exported import Foundation
#if canImport(FoundationNetworking)
// URLRequest, URLResponse and URLSessionConfiguration live here on Linux: one import gives the whole vocabulary.
@_exported import FoundationNetworking
#endif
@_exported import AFProtocols
@_exported import AFCore
@_exported import AFHTTPTypes
@_exported import AFServerSentEvents
@_exported import AFWebSocket
@_exported import AFOperations
@_exported import AFInterceptors
@_exported import AFObservability
@_exported import AFURLProtocol
@_exported import AFHTTPCache
@_exported import AFCookies
@_exported import AFStandardPlugins
@_exported import AFRequestSerialization
@_exported import AFResponseSerialization
@_exported import AFMultipart
@_exported import AFSecurity
@_exported import AFReachability
@_exported import AFActivityIndicator
@_exported import AFImageLoading
