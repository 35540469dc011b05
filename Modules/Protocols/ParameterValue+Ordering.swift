import Foundation

extension ParameterValue {
    /// Whether `lhs` sorts before `rhs` in AFNetworking's order for dictionary keys and set members,
    /// which it sorts with `[NSSortDescriptor sortDescriptorWithKey:@"description" ascending:YES
    /// selector:@selector(compare:)]`: `NSString compare:` without options. That comparison is not literal:
    /// canonically equivalent strings are equal, others compare by their decomposed scalars, so
    /// `"e" < "é" < "z"` (code point order would put `"é"` after `"z"`); ASCII compares byte by byte
    /// (`"B" < "a"`, `"10" < "9"`). Strings it finds equal (two spellings of `"é"`) fall back to scalar
    /// order, so the order is total and serializations are stable.
    static func areInAFOrder(_ lhs: String, _ rhs: String) -> Bool {
        // For ASCII, compare: is byte order; skipping NSString keeps the common case fast.
        if lhs.utf8.allSatisfy({ $0 < 0x80 }), rhs.utf8.allSatisfy({ $0 < 0x80 }) {
            return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
        }
        switch NSString(string: lhs).compare(rhs) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return lhs.unicodeScalars.lexicographicallyPrecedes(rhs.unicodeScalars)
        }
    }
}
