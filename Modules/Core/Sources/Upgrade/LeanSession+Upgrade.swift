import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

extension LeanSession {
    /// Opens `connection` on the session's engine: its request (an http or https URL, the upgrade's
    /// fields set) is sent on a connection of its own once libcurl has connected it with the session's
    /// TLS, pinning, identity and proxies, with the session's additional headers and stored cookies; the
    /// handler hears the outcome on the engine thread. For protocol modules (AFWebSocket).
    ///
    /// A session that was invalidated opens nothing: the handler hears `URLError(.cancelled)` at once.
    package func openUpgrade(_ connection: UpgradedConnection) {
        if let observer = manager.settings.plugins.observer {
            connection.beginObservation(by: observer, taskIdentifier: manager.nextIdentifier())
        }
        guard let engine = manager.currentEngine, engine.openUpgrade(connection) else {
            let error = URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: connection.request.url as Any])
            connection.endObservation(error: error)
            connection.handler.upgradeDidFail(connection, error: error, response: nil)
            return
        }
    }
}
