import CLibXML2

/// The bound on how much text a document may expand to through its DTD, one rule for the tree
/// (``XMLTreeDocument``) and the streaming parser (``XMLPushParser``): the expansion may reach
/// ``allowance`` bytes in any document, and beyond that at most ``ratio`` times the bytes of the document
/// read so far. These are libxml2's own thresholds without `XML_PARSE_HUGE` (`XML_MAX_TEXT_LENGTH`,
/// `XML_PARSER_NON_LINEAR`); libxml2 enforces them only while building a tree, so a SAX parse of a
/// "billion laughs" document would otherwise deliver gigabytes of text.
///
/// Charged: each entity reference in content or an attribute value, at its full expanded size (nested
/// references included), before libxml2 expands it; and, when streaming, attribute values defaulted from
/// the DTD, which are reported again on every element (the tree leaves them out).
///
/// Not thread-safe: owned by one ``XMLParseSession``.
struct XMLExpansionBudget {
    /// The expansion any document may have, whatever its size (libxml2's `XML_MAX_TEXT_LENGTH`).
    static let allowance = 10_000_000
    /// Beyond ``allowance``, the most expanded bytes per input byte (libxml2's `XML_PARSER_NON_LINEAR`).
    static let ratio = 10
    /// Entity nesting deeper than this counts as unbounded; libxml2 itself refuses more than 40 levels.
    static let maximumNesting = 64

    /// What every failure says, so both parsers fail alike.
    static let message = "Entity expansion exceeds \(ratio) times the document's size (and \(allowance) bytes)"

    /// The bytes charged so far.
    private(set) var expandedBytes = 0
    /// Expanded sizes of the entities measured so far, by entity address.
    private var entitySizes: [UnsafeMutableRawPointer: Int] = [:]

    /// Adds `bytes` to the expansion; `false` when the total is over the bound for `inputBytes` read.
    mutating func charge(_ bytes: Int, inputBytes: Int) -> Bool {
        expandedBytes = Self.saturatingSum(expandedBytes, bytes)
        let (relative, overflow) = inputBytes.multipliedReportingOverflow(by: Self.ratio)
        return expandedBytes <= Self.allowance || overflow || expandedBytes <= relative
    }

    /// The bytes a reference to `entity` expands to, nested references included (saturating at
    /// `Int.max`; `Int.max` for nesting deeper than ``maximumNesting``). Measured once per entity from its
    /// replacement text, which keeps nested references as `&name;`.
    mutating func expandedSize(of entity: xmlEntityPtr, in document: xmlDocPtr?) -> Int {
        expandedSize(of: entity, in: document, nesting: 0)
    }

    private mutating func expandedSize(of entity: xmlEntityPtr, in document: xmlDocPtr?, nesting: Int) -> Int {
        let key = UnsafeMutableRawPointer(entity)
        if let known = entitySizes[key] { return known }
        guard nesting < Self.maximumNesting else { return Int.max }
        let length = Int(entity.pointee.length)
        guard entity.pointee.etype != XML_INTERNAL_PREDEFINED_ENTITY, let content = entity.pointee.content,
              length > 0 else { return max(length, 0) }
        // A reference loop measures as nothing here; libxml2 reports the loop itself.
        entitySizes[key] = 0
        let text = UnsafeBufferPointer(start: content, count: length)
        var size = 0
        var index = 0
        while index < length {
            if text[index] == UInt8(ascii: "&"), index + 1 < length, text[index + 1] != UInt8(ascii: "#"),
               let end = text[(index + 1)...].firstIndex(of: UInt8(ascii: ";")) {
                // The name as a C string for the lookup; an undeclared name is a parse error later on.
                let name = Array(text[(index + 1)..<end]) + [0]
                if let nested = xmlGetDocEntity(document, name) {
                    size = Self.saturatingSum(size, expandedSize(of: nested, in: document, nesting: nesting + 1))
                } else {
                    size = Self.saturatingSum(size, end - index + 1)
                }
                index = end + 1
            } else {
                size = Self.saturatingSum(size, 1)
                index += 1
            }
        }
        entitySizes[key] = size
        return size
    }

    private static func saturatingSum(_ lhs: Int, _ rhs: Int) -> Int {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? Int.max : sum
    }
}
