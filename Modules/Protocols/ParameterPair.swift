import Foundation

/// One `field=value` pair of a flattened parameter tree: what AFNetworking calls a query-string pair.
///
/// The query-string serializer percent-escapes both sides and joins them with `=` (a `.null` value gives
/// the bare field); the multipart builder writes each pair as a form field. ``value`` is always a
/// scalar (string, number, bool or null).
public struct ParameterPair: Sendable, Hashable {
    /// The field name, with nesting spelled out: `user[name]`, `tags[]`.
    public var field: String
    /// The scalar value.
    public var value: ParameterValue

    /// Creates a pair.
    public init(field: String, value: ParameterValue) {
        self.field = field
        self.value = value
    }
}

extension ParameterValue {
    /// Flattens the tree into pairs with AFNetworking's rules (AFQueryStringPairsFromKeyAndValue):
    /// dictionary keys ascending by `NSString compare:` (``sortedEntries``), nested dictionaries as
    /// `key[sub]`, arrays as repeated `key[]` in order, sets sorted by their printed form (same order)
    /// under the same `key`, scalars as one pair.
    ///
    /// - Parameter key: the field the value sits under; `nil` at the top level.
    /// - Returns: the pairs in serialization order. A top-level scalar gets the field `""`.
    public func flattenedPairs(key: String? = nil) -> [ParameterPair] {
        var pairs: [ParameterPair] = []
        appendPairs(key: key, to: &pairs)
        return pairs
    }

    private func appendPairs(key: String?, to pairs: inout [ParameterPair]) {
        switch self {
        case .dictionary:
            for (nestedKey, nestedValue) in sortedEntries {
                nestedValue.appendPairs(key: key.map { "\($0)[\(nestedKey)]" } ?? nestedKey, to: &pairs)
            }
        case .array(let elements):
            let field = "\(key ?? "")[]"
            for element in elements { element.appendPairs(key: field, to: &pairs) }
        case .set(let members):
            for member in ParameterValue.sortedSetElements(members) { member.appendPairs(key: key, to: &pairs) }
        case .string, .int, .double, .bool, .null:
            pairs.append(ParameterPair(field: key ?? "", value: self))
        }
    }
}
