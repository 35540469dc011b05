import AFCore
import AFURLProtocol
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// URLSession's class registry on the managers, over AFURLProtocol's responder (the standard local
// responder), composed here because AFCore knows only the responder seam.

extension URLSessionManager {
    /// Makes `protocolClass` answer, in every session with the standard plugins, the requests its
    /// `canInit(with:)` accepts and the session's own `protocolClasses` do not: the Linux stand-in for
    /// `URLProtocol.registerClass(_:)` (`URLProtocolResponder.registerClass(_:)`).
    ///
    /// Threading: any thread. Takes effect for tasks resumed afterwards.
    /// - Returns: true (the signature mirrors `URLProtocol.registerClass(_:)`).
    @discardableResult
    public static func registerProtocolClass(_ protocolClass: URLProtocol.Type) -> Bool {
        URLProtocolResponder.registerClass(protocolClass)
    }

    /// Stops `protocolClass` answering requests (see ``registerProtocolClass(_:)``). Threading: any thread.
    public static func unregisterProtocolClass(_ protocolClass: URLProtocol.Type) {
        URLProtocolResponder.unregisterClass(protocolClass)
    }
}
