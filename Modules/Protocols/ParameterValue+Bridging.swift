import Foundation

/// Errors converting to or from ``ParameterValue``.
public enum ParameterValueConversionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A Foundation object of a type with no ParameterValue form (a date, data, a custom class).
    case unsupportedType(String)
    /// A dictionary key that is not a string.
    case nonStringKey(String)
    /// Two keys of one `NSDictionary` that differ only by Unicode normalization (`"\u{E9}"` and
    /// `"e\u{301}"`): a ``ParameterValue`` dictionary, keyed by Swift strings, cannot hold both, and
    /// dropping one would lose a parameter. The associated value is one of the keys.
    case duplicateKeyAfterNormalization(String)

    public var description: String {
        switch self {
        case .unsupportedType(let type): return "No parameter value form for an object of type \(type)"
        case .nonStringKey(let key): return "Dictionary key \(key) is not a string"
        case .duplicateKeyAfterNormalization(let key):
            return "Dictionary keys equal to \(key) after Unicode normalization cannot both be kept"
        }
    }
}

extension ParameterValue {
    /// Converts any `Encodable` with `JSONEncoder` semantics (its key, date and data strategies apply).
    ///
    /// - Parameters:
    ///   - value: the value to convert; a struct becomes a dictionary, an array an array, and so on.
    ///   - encoder: the encoder whose strategies to use; a default `JSONEncoder` when omitted.
    /// - Throws: `EncodingError` when the value cannot be encoded (a NaN double, for example).
    public init<Value: Encodable>(encoding value: Value, using encoder: JSONEncoder = JSONEncoder()) throws {
        // One JSON round trip keeps every JSONEncoder strategy without a second encoder implementation;
        // parameters are small, so the extra pass is cheap next to the request itself.
        let data = try encoder.encode(value)
        self = try JSONDecoder().decode(ParameterValue.self, from: data)
    }

    /// Converts a Foundation object tree, as `JSONSerialization` or `PropertyListSerialization` returns
    /// it: `NSDictionary`/`[String: Any]`, `NSArray`/`[Any]`, `NSSet`, strings, `NSNumber` (booleans kept
    /// apart from numbers), and `NSNull`.
    ///
    /// - Throws: ``ParameterValueConversionError`` for other types, non-string keys, or two keys of an
    ///   `NSDictionary` that differ only by Unicode normalization.
    public init(foundationObject object: Any) throws {
        switch object {
        case is NSNull:
            self = .null
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = ParameterValue(number: number)
        case let dictionary as NSDictionary where type(of: object) is NSDictionary.Type:
            // Before the [String: Any] case: bridging an NSDictionary would silently merge keys that differ
            // only by normalization, which it can hold (Apple compares NSStrings literally; Linux hashes
            // the two spellings apart).
            self = try ParameterValue(converting: dictionary)
        case let dictionary as [String: Any]:
            self = .dictionary(try dictionary.mapValues { try ParameterValue(foundationObject: $0) })
        case let dictionary as NSDictionary:
            // Any other Swift dictionary, bridged: its non-string keys are reported.
            self = try ParameterValue(converting: dictionary)
        case let array as [Any]:
            self = .array(try array.map { try ParameterValue(foundationObject: $0) })
        case let set as NSSet:
            self = .set(Set(try set.map { try ParameterValue(foundationObject: $0) }))
        default:
            throw ParameterValueConversionError.unsupportedType(String(describing: type(of: object)))
        }
    }

    private init(converting dictionary: NSDictionary) throws {
        var converted: [String: ParameterValue] = [:]
        for (key, value) in dictionary {
            guard let key = key as? String else { throw ParameterValueConversionError.nonStringKey("\(key)") }
            if converted.updateValue(try ParameterValue(foundationObject: value), forKey: key) != nil {
                throw ParameterValueConversionError.duplicateKeyAfterNormalization(key)
            }
        }
        self = .dictionary(converted)
    }

    private init(number: NSNumber) {
        // On Linux `number is Bool` holds for every NSNumber; only the boolean class and its "c"
        // encoding tell a JSON true/false from 1/0.
        let encoding = String(cString: number.objCType)
        if encoding == "c", String(describing: type(of: number)).contains("Boolean") {
            self = .bool(number.boolValue)
        } else if ["f", "d"].contains(encoding) {
            self = .double(number.doubleValue)
        } else if encoding == "Q", number.uint64Value > UInt64(Int.max) {
            self = .double(number.doubleValue)
        } else {
            self = .int(number.intValue)
        }
    }

    /// The Foundation object tree for `JSONSerialization` and `PropertyListSerialization`:
    /// `[String: Any]`, `[Any]`, `NSSet` (which both reject, as AFNetworking's serializers do), `String`,
    /// `Int`, `Double`, `Bool` and `NSNull`.
    public var foundationObject: Any {
        switch self {
        case .string(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .bool(let value): return value
        case .null: return NSNull()
        case .array(let value): return value.map(\.foundationObject)
        case .set(let value): return NSSet(array: value.map(\.foundationObject))
        case .dictionary(let value): return value.mapValues(\.foundationObject)
        }
    }
}
