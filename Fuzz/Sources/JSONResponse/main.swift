import AFNetworking
import Foundation
import FuzzSupport

let keeping = JSONResponseSerializer(readingOptions: .fragmentsAllowed)
let removing = JSONResponseSerializer(readingOptions: .fragmentsAllowed, removesKeysWithNullValues: true)

/// Arbitrary bytes through JSONResponseSerializer with and without null removal (and fragments): must
/// never crash, and removal while parsing must equal removal on the parsed tree.
@_cdecl("JSONResponse_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    // No response: validation passes (it checks HTTP responses only), so every input reaches the parser.
    return runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data else { return 0 }
        let bytes = Data(bytes: data, count: size)
        let kept = keeping.responseObject(for: nil, data: bytes)
        let removed = removing.responseObject(for: nil, data: bytes)
        precondition((kept.error == nil) == (removed.error == nil), "null removal changed whether the body parses")
        if let value = kept.object as? ParameterValue, let stripped = removed.object as? ParameterValue, !value.isNull {
            precondition(stripped == value.removingNullValuesForFuzzing(), "null removal paths disagree")
        }
        return 0
    }
}

extension ParameterValue {
    /// An independent statement of AF 4's rule, to check the serializer against.
    func removingNullValuesForFuzzing() -> ParameterValue {
        switch self {
        case .dictionary(let dictionary): return .dictionary(dictionary.filter { !$0.value.isNull }.mapValues { $0.removingNullValuesForFuzzing() })
        case .array(let array): return .array(array.filter { !$0.isNull }.map { $0.removingNullValuesForFuzzing() })
        default: return self
        }
    }
}
