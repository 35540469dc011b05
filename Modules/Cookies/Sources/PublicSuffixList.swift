import CLibPSL

/// The public suffix list (publicsuffix.org), read through libpsl: which domains are suffixes under
/// which anyone may register a name (`com`, `co.uk`, `github.io`), so that no cookie may be set for them.
///
/// The data is libpsl's most recent: the distribution's list (Debian's `publicsuffix` package, kept up
/// to date by the system) or, when that is missing or older, the one built into libpsl. With neither,
/// every domain counts as a public suffix, so only host-only cookies are kept: the jar fails closed.
///
/// Threading: libpsl only reads a loaded list, so every look-up is safe from any thread.
struct PublicSuffixList: @unchecked Sendable {
    // @unchecked Sendable: the context is never changed after loading, and libpsl's look-ups only read it.
    private let context: OpaquePointer?

    /// The list libpsl finds on this system, loaded once per process (never freed: every jar reads it).
    static let system = PublicSuffixList(context: psl_latest(nil) ?? psl_builtin())

    /// Whether the list was found (false: every domain is treated as a public suffix).
    var isLoaded: Bool { context != nil }

    /// Whether `domain` (lowercase, no leading dot) is a public suffix, the list's implicit `*` rule
    /// included (an unlisted single label such as `localhost` or `internal` is one).
    func isPublicSuffix(_ domain: String) -> Bool {
        guard let context else { return true }
        return psl_is_public_suffix2(context, domain, Int32(PSL_TYPE_ANY)) != 0
    }

    /// The registrable domain of `host` (its public suffix and one label more: `a.b.example.co.uk` gives
    /// `example.co.uk`), or nil when `host` is a public suffix itself or no list was found.
    func registrableDomain(of host: String) -> String? {
        guard let context else { return nil }
        return host.withCString { start -> String? in
            // libpsl answers with a pointer into the string it was given.
            guard let found = psl_registrable_domain(context, start) else { return nil }
            return String(cString: found)
        }
    }
}
