import Foundation

/// A request parameter or a decoded response value: the Sendable stand-in for AFNetworking's
/// `NSDictionary`/`NSArray`/`NSString`/`NSNumber`/`NSNull` trees.
///
/// Build one from literals (`["page": 2, "tags": ["a", "b"], "debug": true, "cursor": nil]`), from any
/// `Encodable` with `init(encoding:)`, or from a Foundation object tree with ``init(foundationObject:)``.
/// Dictionaries are unordered; every serializer that writes them uses ``sortedEntries`` (keys in
/// AFNetworking's `NSString compare:` order), so output is stable.
///
/// Keys that differ only by Unicode normalization (`"\u{E9}"` and `"e\u{301}"`) are one key here, as in any
/// Swift `[String: ...]`: conversions that would merge two such keys from their input throw instead
/// (``init(foundationObject:)``, and the JSON response parser).
///
/// Threading: a value type; safe to share between threads.
public enum ParameterValue: Sendable, Hashable {
    /// A string.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A boolean; written as `1`/`0` in query strings (as AFNetworking prints `@YES`/`@NO`).
    case bool(Bool)
    /// `null`: a bare key in query strings, an empty form field in multipart bodies.
    case null
    /// An ordered list; written as repeated `key[]` pairs in query strings.
    case array([ParameterValue])
    /// An unordered set (AFNetworking's `NSSet`); written sorted, as repeated `key` pairs without `[]`.
    case set(Set<ParameterValue>)
    /// A string-keyed dictionary; nested ones are written as `key[sub]`.
    case dictionary([String: ParameterValue])
}

// MARK: - Reading values

extension ParameterValue {
    /// The dictionary entries sorted by key as AFNetworking sorts them, with `NSString compare:`
    /// (`"B" < "a"`, `"10" < "9"`, `"e" < "é" < "z"`), the stable order every serializer uses. Empty for
    /// non-dictionaries.
    public var sortedEntries: [(key: String, value: ParameterValue)] {
        guard case .dictionary(let dictionary) = self else { return [] }
        return dictionary.sorted { ParameterValue.areInAFOrder($0.key, $1.key) }
    }

    /// The value for `key` when this is a dictionary, else `nil`.
    public subscript(key: String) -> ParameterValue? {
        guard case .dictionary(let dictionary) = self else { return nil }
        return dictionary[key]
    }

    /// The element at `index` when this is an array and the index is in range, else `nil`.
    public subscript(index: Int) -> ParameterValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The string, when this is `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, when this is `.int`, or a `.double` with an exact integer value.
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The number as a `Double`, when this is `.int` or `.double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The boolean, when this is `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is `.array`.
    public var arrayValue: [ParameterValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The dictionary, when this is `.dictionary`.
    public var dictionaryValue: [String: ParameterValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// Whether this is `.null`.
    public var isNull: Bool { self == .null }

    /// A scalar as AFNetworking prints it into a query string or form field: strings as they are,
    /// integers in decimal, doubles in their shortest form with integral values printed without a
    /// fraction (`2.0` -> `"2"`, as `NSNumber` does), booleans as `"1"`/`"0"`, null as `""`.
    /// `nil` for arrays, sets and dictionaries.
    public var scalarDescription: String? {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .double(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
            return String(describing: value)
        case .bool(let value): return value ? "1" : "0"
        case .null: return ""
        case .array, .set, .dictionary: return nil
        }
    }
}

// MARK: - Literals

extension ParameterValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension ParameterValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension ParameterValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension ParameterValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension ParameterValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension ParameterValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: ParameterValue...) { self = .array(elements) }
}

extension ParameterValue: ExpressibleByDictionaryLiteral {
    /// Builds a dictionary; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, ParameterValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Codable (JSON form)

extension ParameterValue: Codable {
    /// Decodes any JSON value: null, bool, integer, floating-point number, string, array or object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ParameterValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: ParameterValue].self) {
            self = .dictionary(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a JSON value")
        }
    }

    /// Encodes as JSON; a set is written as an array in ``scalarDescription``-sorted order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .set(let value): try container.encode(ParameterValue.sortedSetElements(value))
        case .dictionary(let value): try container.encode(value)
        }
    }

    /// Set elements in AFNetworking's order: ascending by their printed form, with `NSString compare:`.
    static func sortedSetElements(_ set: Set<ParameterValue>) -> [ParameterValue] {
        set.sorted { ParameterValue.areInAFOrder($0.sortKey, $1.sortKey) }
    }

    private var sortKey: String {
        if let scalar = scalarDescription { return scalar }
        return String(describing: self)
    }
}

extension ParameterValue: CustomStringConvertible {
    /// A compact JSON-like rendering, for logs and test failure messages.
    public var description: String {
        switch self {
        case .string(let value): return "\"\(value)\""
        case .int, .double, .bool: return scalarDescription ?? ""
        case .null: return "null"
        case .array(let value): return "[" + value.map(\.description).joined(separator: ", ") + "]"
        case .set(let value):
            return "Set[" + ParameterValue.sortedSetElements(value).map(\.description).joined(separator: ", ") + "]"
        case .dictionary:
            return "{" + sortedEntries.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}
