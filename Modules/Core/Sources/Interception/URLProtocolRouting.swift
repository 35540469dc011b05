import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which `URLProtocol` subclass, if any, answers a request instead of the network, as URLSession asks
/// them: the configuration's `protocolClasses` first, in order, then the classes registered with
/// ``URLSessionManager/registerProtocolClass(_:)``, the most recently registered first. The first whose
/// `canInit(with:)` accepts the request answers it, with the request its `canonicalRequest(for:)` gives.
///
/// Foundation's own classes in `protocolClasses` (`_HTTPURLProtocol` and its kin, which the default
/// configurations list) are skipped: the engine is the HTTP implementation here.
///
/// Threading: the class methods run on the thread that resumes the task, as on Apple platforms
/// (a protocol's `canInit(with:)` must be thread-safe there too).
struct URLProtocolRouting: Sendable {
    /// The configuration's classes that are not Foundation's own.
    let configurationClasses: [URLProtocol.Type]

    init(configuration: URLSessionConfiguration) {
        configurationClasses = (configuration.protocolClasses ?? []).compactMap { $0 as? URLProtocol.Type }
            .filter { !Self.isFoundationsOwn($0) }
    }

    init(classes: [URLProtocol.Type]) {
        configurationClasses = classes
    }

    /// Whether any class could answer a request (else no request need be read for ``route(_:)``).
    var mayRoute: Bool { !configurationClasses.isEmpty || !Self.registeredClasses().isEmpty }

    /// The class that answers `request`, and the request it answers; nil: the network does.
    func route(_ request: URLRequest) -> (protocolClass: URLProtocol.Type, request: URLRequest)? {
        for candidate in configurationClasses where candidate.canInit(with: request) {
            return (candidate, candidate.canonicalRequest(for: request))
        }
        for candidate in Self.registeredClasses() where candidate.canInit(with: request) {
            return (candidate, candidate.canonicalRequest(for: request))
        }
        return nil
    }

    private static func isFoundationsOwn(_ type: URLProtocol.Type) -> Bool {
        String(reflecting: type).hasPrefix("FoundationNetworking.")
    }

    // MARK: The process-wide registry

    /// The classes registered with ``URLSessionManager/registerProtocolClass(_:)``, newest first.
    static func registeredClasses() -> [URLProtocol.Type] {
        registry.withLock { $0 }
    }

    /// Registered classes, the most recently registered first (as URLSession consults them).
    static let registry = Protected<[URLProtocol.Type]>([])
}

extension URLSessionManager {
    /// Makes `protocolClass` answer, in every session, the requests its `canInit(with:)` accepts and
    /// the session's own `protocolClasses` do not: the Linux stand-in for `URLProtocol.registerClass(_:)`.
    ///
    /// swift-corelibs-foundation keeps `URLProtocol.registerClass`'s list private and exports no way to
    /// read it, so classes registered there are not seen by these sessions: register them here (test
    /// code that stubs the network calls this where it called `URLProtocol.registerClass`). The most
    /// recently registered class is asked first. Registering a class again moves it to the front.
    ///
    /// Threading: any thread. Takes effect for tasks resumed afterwards.
    /// - Returns: true (the signature mirrors `URLProtocol.registerClass(_:)`).
    @discardableResult
    public static func registerProtocolClass(_ protocolClass: URLProtocol.Type) -> Bool {
        URLProtocolRouting.registry.withLock { classes in
            classes.removeAll { $0 == protocolClass }
            classes.insert(protocolClass, at: 0)
        }
        return true
    }

    /// Stops `protocolClass` answering requests (see ``registerProtocolClass(_:)``). Threading: any thread.
    public static func unregisterProtocolClass(_ protocolClass: URLProtocol.Type) {
        URLProtocolRouting.registry.withLock { classes in classes.removeAll { $0 == protocolClass } }
    }
}
