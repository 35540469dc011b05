import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Routes requests to `URLProtocol` subclasses as URLSession asks them: a session's configuration's
/// `protocolClasses` first, in order, then the classes registered with ``registerClass(_:)``, the most
/// recently registered first. The first whose `canInit(with:)` accepts a request answers it, with the
/// request its `canonicalRequest(for:)` gives.
///
/// A `LocalResponder`: install it as a session's `SessionPlugins.localResponder` (the umbrella module
/// `AFNetworking` installs it in every manager it makes, and keeps
/// `URLSessionManager.registerProtocolClass(_:)`).
///
/// Threading: the class methods run on the thread that resumes the task, as on Apple platforms (a
/// protocol's `canInit(with:)` must be thread-safe there too); `startLoading()` and `stopLoading()` on
/// the session's engine thread.
public struct URLProtocolResponder: LocalResponder {
    /// A responder for the sessions' configured and the registered classes.
    public init() {}

    /// Whether a configured or registered class exists (else no request is read).
    public func mayAnswer(protocolClasses: [AnyClass]) -> Bool {
        !protocolClasses.isEmpty || !Self.registeredClasses().isEmpty
    }

    /// The load of the first class that accepts `request`, or nil (the network answers).
    public func load(for request: URLRequest, protocolClasses: [AnyClass]) -> (any LocalLoad)? {
        let candidates = protocolClasses.compactMap { $0 as? URLProtocol.Type } + Self.registeredClasses()
        for candidate in candidates where candidate.canInit(with: request) {
            return URLProtocolLoad(protocolClass: candidate, request: candidate.canonicalRequest(for: request))
        }
        return nil
    }

    // MARK: The process-wide registry

    /// Makes `protocolClass` answer, in every session with this responder, the requests its
    /// `canInit(with:)` accepts and the session's own `protocolClasses` do not: the Linux stand-in for
    /// `URLProtocol.registerClass(_:)`.
    ///
    /// swift-corelibs-foundation keeps `URLProtocol.registerClass`'s list private and exports no way to
    /// read it, so classes registered there are not seen: register them here (test code that stubs the
    /// network calls this where it called `URLProtocol.registerClass`). The most recently registered
    /// class is asked first. Registering a class again moves it to the front.
    ///
    /// Threading: any thread. Takes effect for tasks resumed afterwards.
    /// - Returns: true (the signature mirrors `URLProtocol.registerClass(_:)`).
    @discardableResult
    public static func registerClass(_ protocolClass: URLProtocol.Type) -> Bool {
        registry.withLock { classes in
            classes.removeAll { $0 == protocolClass }
            classes.insert(protocolClass, at: 0)
        }
        return true
    }

    /// Stops `protocolClass` answering requests (see ``registerClass(_:)``). Threading: any thread.
    public static func unregisterClass(_ protocolClass: URLProtocol.Type) {
        registry.withLock { classes in classes.removeAll { $0 == protocolClass } }
    }

    /// The registered classes, newest first.
    public static func registeredClasses() -> [URLProtocol.Type] {
        registry.withLock { $0 }
    }

    private static let registry = Protected<[URLProtocol.Type]>([])
}
