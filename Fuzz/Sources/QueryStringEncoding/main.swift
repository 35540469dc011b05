import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FuzzSupport

/// Escapes arbitrary text and encodes arbitrary JSON parameter trees: must never crash, escaping must
/// leave only the allowed characters and percent-decode back to the input, and every serializer must
/// either build a request or throw a typed error.
@_cdecl("QueryStringEncoding_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data else { return 0 }
        checkEncoding(of: Data(bytes: data, count: size))
        return 0
    }
}

private let allowedInEscapes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?%".utf8)

private let serializers: [HTTPRequestSerializer] = [
    HTTPRequestSerializer(applicationName: "fuzz", applicationVersion: "1", preferredLanguages: ["en"]),
    JSONRequestSerializer(applicationName: "fuzz", applicationVersion: "1", preferredLanguages: ["en"]),
    PropertyListRequestSerializer(applicationName: "fuzz", applicationVersion: "1", preferredLanguages: ["en"]),
]

private func checkEncoding(of bytes: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    let escaped = percentEscapedString(text)
    precondition(escaped.utf8.allSatisfy { allowedInEscapes.contains($0) }, "unescaped character in \(escaped)")
    precondition(escaped.removingPercentEncoding == text, "escaping does not round-trip")

    guard let value = try? JSONDecoder().decode(ParameterValue.self, from: bytes) else { return }
    let query = queryString(from: value)
    precondition(query.utf8.allSatisfy { allowedInEscapes.contains($0) || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "&") })
    for serializer in serializers {
        for method in ["GET", "POST"] {
            do {
                _ = try serializer.request(method: method, urlString: "http://127.0.0.1/p?x=1", parameters: value)
            } catch is RequestSerializationError {
                // a typed rejection (a top-level scalar as JSON, a null in a property list) is fine
            } catch {
                preconditionFailure("untyped error \(error)")
            }
        }
    }
}
