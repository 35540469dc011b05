import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Encodes parameters as a property-list body (AFPropertyListRequestSerializer); `GET`, `HEAD` and
/// `DELETE` still put them in the query string.
///
/// Body methods get `Content-Type: application/x-plist` unless the request has one, and the
/// `PropertyListSerialization` body in ``format`` (XML v1.0 by default); nil parameters leave the body
/// empty.
///
/// Threading: safe from any thread, like ``HTTPRequestSerializer``.
open class PropertyListRequestSerializer: HTTPRequestSerializer, @unchecked Sendable {
    // @unchecked Sendable: the only added state, `settings`, sits behind a Mutex.

    private struct Settings {
        var format: PropertyListSerialization.PropertyListFormat
        var writeOptions: PropertyListSerialization.WriteOptions
    }

    private let settings: Protected<Settings>

    /// The body format. Default `.xml` (XML v1.0).
    public var format: PropertyListSerialization.PropertyListFormat {
        get { settings.withLock { $0.format } }
        set { settings.withLock { $0.format = newValue } }
    }

    /// The `PropertyListSerialization` write options (currently unused by Foundation). Default 0.
    public var writeOptions: PropertyListSerialization.WriteOptions {
        get { settings.withLock { $0.writeOptions } }
        set { settings.withLock { $0.writeOptions = newValue } }
    }

    /// Creates a property-list serializer; the other parameters are those of
    /// ``HTTPRequestSerializer/init(applicationName:applicationVersion:preferredLanguages:)``.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml,
                writeOptions: PropertyListSerialization.WriteOptions = 0,
                applicationName: String? = nil, applicationVersion: String? = nil,
                preferredLanguages: [String] = Locale.preferredLanguages) {
        settings = Protected(Settings(format: format, writeOptions: writeOptions))
        super.init(applicationName: applicationName, applicationVersion: applicationVersion,
                   preferredLanguages: preferredLanguages)
    }

    /// Serializes `parameters` as a property list into the body (or the query string for the URI methods).
    ///
    /// - Throws: ``RequestSerializationError`` with ``RequestSerializationError/Reason/invalidPropertyList``
    ///   (code -1016; `PropertyListSerialization`'s error underneath) when the parameters have no
    ///   property-list form: a null or a set anywhere in the tree.
    open override func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.request(bySerializing: request, withParameters: parameters)
        }
        var serialized = applyingDefaultHeaders(to: request)
        guard let parameters else { return serialized }
        if serialized.value(forHTTPHeaderField: "Content-Type") == nil {
            serialized.setValue("application/x-plist", forHTTPHeaderField: "Content-Type")
        }
        let (format, writeOptions) = settings.withLock { ($0.format, $0.writeOptions) }
        do {
            serialized.httpBody = try PropertyListSerialization.data(
                fromPropertyList: parameters.foundationObject, format: format, options: writeOptions)
        } catch {
            throw RequestSerializationError(.invalidPropertyList, request: serialized, underlyingError: error as NSError)
        }
        return serialized
    }
}
