import AFNetworking
import Foundation
import FuzzSupport

/// Decodes arbitrary bytes as JSON into a ParameterValue and flattens it: must never crash.
@_cdecl("ParameterFlattening_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data else { return 0 }
        let bytes = Data(bytes: data, count: size)
        if let value = try? JSONDecoder().decode(ParameterValue.self, from: bytes) {
            _ = value.flattenedPairs()
            _ = value.description
        }
        return 0
    }
}
