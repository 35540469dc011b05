import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The async twins of the verbs. Each returns the response and the serialized object, throws the
/// transport, serialization or response-serializer error, and cancels its transfer when the Swift task
/// is cancelled. None needs the main queue.
extension HTTPSessionManager {
    /// GET (see ``get(_:parameters:headers:progress:success:failure:)``).
    public func get(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                    progress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        try await perform("GET", urlString, parameters, headers, downloadProgress: progress)
    }

    /// HEAD; returns the response.
    @discardableResult
    public func head(_ urlString: String, parameters: ParameterValue? = nil,
                     headers: [String: String]? = nil) async throws -> URLResponse? {
        try await perform("HEAD", urlString, parameters, headers).response
    }

    /// POST with parameters in the body.
    public func post(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                     progress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        try await perform("POST", urlString, parameters, headers, uploadProgress: progress)
    }

    /// Multipart POST (needs ``multipartFormRequestBuilder``).
    public func post(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                     constructingBodyWith block: (any MultipartFormData) throws -> Void,
                     progress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        let streamed = try multipartRequest(urlString, parameters: parameters, headers: headers,
                                            constructingBodyWith: block)
        return try await upload(streamed, progress: progress)
    }

    /// PUT with parameters in the body.
    public func put(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil)
        async throws -> (response: URLResponse?, object: (any Sendable)?) {
        try await perform("PUT", urlString, parameters, headers)
    }

    /// PATCH with parameters in the body.
    public func patch(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil)
        async throws -> (response: URLResponse?, object: (any Sendable)?) {
        try await perform("PATCH", urlString, parameters, headers)
    }

    /// DELETE with parameters in the query.
    public func delete(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil)
        async throws -> (response: URLResponse?, object: (any Sendable)?) {
        try await perform("DELETE", urlString, parameters, headers)
    }

    /// GET decoded into `type` with `decoder`: the response is validated with AFNetworking's rule (2xx),
    /// then the raw body is decoded (the response serializer is bypassed).
    /// - Throws: the transport error, the validation error, or the `DecodingError`.
    public func get<Value: Decodable & Sendable>(_ urlString: String, parameters: ParameterValue? = nil,
                                                 headers: [String: String]? = nil, as type: Value.Type,
                                                 decoder: JSONDecoder = JSONDecoder()) async throws -> Value {
        try await decoded("GET", urlString, parameters, headers, as: type, decoder: decoder)
    }

    /// POST decoded into `type` (see ``get(_:parameters:headers:as:decoder:)``).
    public func post<Value: Decodable & Sendable>(_ urlString: String, parameters: ParameterValue? = nil,
                                                  headers: [String: String]? = nil, as type: Value.Type,
                                                  decoder: JSONDecoder = JSONDecoder()) async throws -> Value {
        try await decoded("POST", urlString, parameters, headers, as: type, decoder: decoder)
    }

    /// Any method decoded into `type` (see ``get(_:parameters:headers:as:decoder:)``).
    public func request<Value: Decodable & Sendable>(_ method: String, _ urlString: String,
                                                     parameters: ParameterValue? = nil,
                                                     headers: [String: String]? = nil, as type: Value.Type,
                                                     decoder: JSONDecoder = JSONDecoder()) async throws -> Value {
        try await decoded(method, urlString, parameters, headers, as: type, decoder: decoder)
    }

    private func perform(_ method: String, _ urlString: String, _ parameters: ParameterValue?,
                         _ headers: [String: String]?, uploadProgress: (@Sendable (Progress) -> Void)? = nil,
                         downloadProgress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        let request = try makeRequest(method: method, urlString: urlString, parameters: parameters, headers: headers)
        return try await data(for: request, uploadProgress: uploadProgress, downloadProgress: downloadProgress)
    }

    private func decoded<Value: Decodable & Sendable>(_ method: String, _ urlString: String,
                                                      _ parameters: ParameterValue?, _ headers: [String: String]?,
                                                      as type: Value.Type, decoder: JSONDecoder) async throws -> Value {
        let request = try makeRequest(method: method, urlString: urlString, parameters: parameters, headers: headers)
        let (_, object) = try await data(for: request, serializer: HTTPResponseSerializer())
        let body = (object as? Data) ?? Data()
        return try decoder.decode(type, from: body)
    }
}
