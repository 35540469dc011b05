/// Serializes `parameters` into a URL query string with AFNetworking's rules (AFQueryStringFromParameters).
///
/// The tree is flattened with ``ParameterValue/flattenedPairs(key:)`` (dictionary keys ascending by
/// `NSString compare:`, nested dictionaries as `key[sub]`, arrays as repeated `key[]`, sets sorted under
/// the same key); each pair becomes `escaped(field)=escaped(value)` with ``percentEscapedString(_:)``, a
/// `.null` value gives the bare escaped field, booleans print as `1`/`0`; pairs are joined by `&`.
/// An empty dictionary gives `""`.
///
/// Example: `["a": ["c": 3, "b": 2]]` -> `a%5Bb%5D=2&a%5Bc%5D=3`.
///
/// Threading: a pure function; call it from any thread.
public func queryString(from parameters: ParameterValue) -> String {
    var query = ""
    for pair in parameters.flattenedPairs() {
        if !query.isEmpty { query.append("&") }
        query.append(percentEscapedString(pair.field))
        if pair.value != .null, let value = pair.value.scalarDescription {
            query.append("=")
            query.append(percentEscapedString(value))
        }
    }
    return query
}
