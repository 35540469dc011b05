import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Encodes parameters as a JSON body (AFJSONRequestSerializer); `GET`, `HEAD` and `DELETE` still put
/// them in the query string.
///
/// Body methods get `Content-Type: application/json` unless the request has one, and the
/// `JSONSerialization` body of the parameters (a dictionary or array at the top level); nil parameters
/// leave the body empty.
///
/// Threading: safe from any thread, like ``HTTPRequestSerializer``.
open class JSONRequestSerializer: HTTPRequestSerializer, @unchecked Sendable {
    // @unchecked Sendable: restated, as Swift requires of a subclass of an unchecked class; the only added
    // state, `options`, sits behind a lock (Protected).

    private let options = Protected<JSONSerialization.WritingOptions>([])

    /// The `JSONSerialization` writing options of the body. Default none (compact; key order unspecified),
    /// as in AFNetworking; add `.sortedKeys` for stable bodies.
    public var writingOptions: JSONSerialization.WritingOptions {
        get { options.withLock { $0 } }
        set { options.withLock { $0 = newValue } }
    }

    /// Creates a JSON serializer; the parameters are those of ``HTTPRequestSerializer/init(applicationName:applicationVersion:preferredLanguages:)``.
    public init(writingOptions: JSONSerialization.WritingOptions = [], applicationName: String? = nil,
                applicationVersion: String? = nil, preferredLanguages: [String] = Locale.preferredLanguages) {
        super.init(applicationName: applicationName, applicationVersion: applicationVersion,
                   preferredLanguages: preferredLanguages)
        self.writingOptions = writingOptions
    }

    /// Serializes `parameters` as JSON into the body (or the query string for the URI methods).
    ///
    /// - Throws: `RequestSerializationError` with `RequestSerializationError/Reason/invalidJSON`
    ///   (code -1016, reason `The `parameters` argument is not valid JSON.`) when the parameters have no
    ///   JSON form: a set, NaN, infinity, or a scalar at the top level.
    open override func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.request(bySerializing: request, withParameters: parameters)
        }
        var serialized = applyingDefaultHeaders(to: request)
        guard let parameters else { return serialized }
        if serialized.value(forHTTPHeaderField: "Content-Type") == nil {
            serialized.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let object = parameters.foundationObject
        guard JSONSerialization.isValidJSONObject(object) else {
            throw RequestSerializationError(.invalidJSON, request: serialized)
        }
        do {
            serialized.httpBody = try JSONSerialization.data(withJSONObject: object, options: writingOptions)
        } catch {
            throw RequestSerializationError(.invalidJSON, request: serialized, underlyingError: error as NSError)
        }
        return serialized
    }
}
