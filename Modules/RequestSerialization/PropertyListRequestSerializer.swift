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
    // @unchecked Sendable: restated, as Swift requires of a subclass of an unchecked class; the only added
    // state, `options`, sits behind a lock (Protected).

    private struct Options {
        var format: PropertyListSerialization.PropertyListFormat
        var writeOptions: PropertyListSerialization.WriteOptions
    }

    private let options: Protected<Options>

    /// The body format. Default `.xml` (XML v1.0).
    public var format: PropertyListSerialization.PropertyListFormat {
        get { options.withLock { $0.format } }
        set { options.withLock { $0.format = newValue } }
    }

    /// The `PropertyListSerialization` write options (currently unused by Foundation). Default 0.
    public var writeOptions: PropertyListSerialization.WriteOptions {
        get { options.withLock { $0.writeOptions } }
        set { options.withLock { $0.writeOptions = newValue } }
    }

    /// Creates a property-list serializer; the other parameters are those of
    /// ``HTTPRequestSerializer/init(applicationName:applicationVersion:preferredLanguages:)``.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml,
                writeOptions: PropertyListSerialization.WriteOptions = 0,
                applicationName: String? = nil, applicationVersion: String? = nil,
                preferredLanguages: [String] = Locale.preferredLanguages) {
        options = Protected(Options(format: format, writeOptions: writeOptions))
        super.init(applicationName: applicationName, applicationVersion: applicationVersion,
                   preferredLanguages: preferredLanguages)
    }

    /// Serializes `parameters` as a property list into the body (or the query string for the URI methods).
    ///
    /// - Throws: `RequestSerializationError` with `RequestSerializationError/Reason/invalidPropertyList`
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
        let (format, writeOptions) = options.withLock { ($0.format, $0.writeOptions) }
        do {
            serialized.httpBody = try PropertyListSerialization.data(
                fromPropertyList: parameters.foundationObject, format: format, options: writeOptions)
        } catch {
            throw RequestSerializationError(.invalidPropertyList, request: serialized, underlyingError: error as NSError)
        }
        return serialized
    }
}
