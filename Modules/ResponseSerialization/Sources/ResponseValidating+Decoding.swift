import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponseValidating {
    /// Validates and reports whether a parser should still run, as AFNetworking's decoding serializers
    /// do: a failed status still decodes the body (the object travels with the error), an unacceptable
    /// content type does not.
    func validationBeforeDecoding(_ response: URLResponse?, data: Data?) -> (shouldDecode: Bool, error: NSError?) {
        let result = validation.validate(response, data: data)
        guard !result.isValid, let error = result.error else { return (true, result.error) }
        let contentTypeFailed = error.underlyingErrorChain.contains {
            $0.domain == URLResponseSerializationErrorDomain && $0.code == URLError.cannotDecodeContentData.rawValue
        }
        return (!contentTypeFailed, error)
    }
}
