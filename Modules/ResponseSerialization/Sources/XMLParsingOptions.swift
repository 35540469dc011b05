/// Limits and switches for the libxml2-based XML parsers (``XMLTreeDocument``, ``XMLPushParser``,
/// ``XMLStreamParser``).
///
/// Fixed, not configurable, because they are what makes parsing untrusted responses safe: no network
/// access, no external DTD subset, no external entities (general or parameter; their declarations are
/// ignored, so a reference to one is an undeclared-entity error), no XInclude. Internal entities are
/// substituted, within one expansion bound for both parsers: 10 MB in any document, beyond that at most 10
/// times the bytes read (libxml2's thresholds, which it applies to trees only; `XML_PARSE_HUGE` is never set).
///
/// Threading: a value type; safe to share.
public struct XMLParsingOptions: Sendable, Hashable, Codable {
    /// The deepest element nesting accepted; deeper documents fail with
    /// ``XMLParsingError/Kind-swift.enum/depthLimitExceeded``. Default 256. When building a tree, libxml2's
    /// own ceiling (256 without `XML_PARSE_HUGE`, which this library never sets) applies as well.
    public var maximumDepth: Int
    /// The most entity resolutions in one document; more fail with
    /// ``XMLParsingError/Kind-swift.enum/entityLimitExceeded``. Every reference to a declared entity is
    /// resolved, in content and attribute values (libxml2 resolves the first reference to each entity
    /// twice: once to check its text), and in streaming mode references inside entity text are resolved
    /// again at each use. Predefined entities (`&amp;` ...) and character references do not count.
    /// Default 100,000.
    public var maximumEntityResolutions: Int
    /// Whether CDATA sections are kept as CDATA (tree) or reported to ``XMLStreamParserDelegate/parser(_:foundCDATA:)``
    /// (streaming). When `false` they are merged into text. Default `true`.
    public var preservesCDATA: Bool
    /// Whether whitespace-only text between elements is kept. `false` drops it (libxml2's NOBLANKS), so
    /// ``XMLTreeDocument/xmlString(prettyPrinted:)`` can indent afresh. Default `true`.
    public var keepsBlankText: Bool

    /// Creates options; the defaults are the safe ones described on each property.
    public init(maximumDepth: Int = 256, maximumEntityResolutions: Int = 100_000, preservesCDATA: Bool = true,
                keepsBlankText: Bool = true) {
        self.maximumDepth = maximumDepth
        self.maximumEntityResolutions = maximumEntityResolutions
        self.preservesCDATA = preservesCDATA
        self.keepsBlankText = keepsBlankText
    }
}
