extension CookieJar {
    /// The bounds a jar keeps, as browsers keep them (Chromium's figures are the defaults).
    ///
    /// When a domain holds more than ``maximumCookiesPerDomain`` cookies, its expired cookies go first,
    /// then its least recently used ones, down to five sixths of the bound (150 of 180); when the jar
    /// holds more than ``maximumCookies``, the same happens across all domains, down to ten elevenths of
    /// the bound (3,000 of 3,300). Purging in batches keeps storing a cookie cheap however full the jar is.
    public struct Limits: Equatable, Sendable {
        /// The most cookies one registrable domain (`example.co.uk` and all its subdomains) keeps.
        /// Default 180.
        public var maximumCookiesPerDomain: Int
        /// The most cookies the jar keeps in all. Default 3,300.
        public var maximumCookies: Int
        /// The most bytes a cookie's name and value may hold together (RFC 6265bis: at least 4,096);
        /// a larger cookie is refused. Default 4,096.
        public var maximumCookieSize: Int
        /// The longest a cookie may live: a later `Expires` or a larger `Max-Age` is cut to it
        /// (RFC 6265bis: 400 days). Default 400 days.
        public var maximumLifetime: Duration

        /// Limits with the given bounds (each clamped to at least 1, and the lifetime to at least 1 s).
        public init(maximumCookiesPerDomain: Int = 180, maximumCookies: Int = 3_300, maximumCookieSize: Int = 4_096,
                    maximumLifetime: Duration = .seconds(400 * 86_400)) {
            self.maximumCookiesPerDomain = max(1, maximumCookiesPerDomain)
            self.maximumCookies = max(1, maximumCookies)
            self.maximumCookieSize = max(1, maximumCookieSize)
            self.maximumLifetime = max(.seconds(1), maximumLifetime)
        }

        /// How many a full domain keeps after a purge.
        var domainCountAfterPurge: Int { maximumCookiesPerDomain - maximumCookiesPerDomain / 6 }
        /// How many a full jar keeps after a purge.
        var countAfterPurge: Int { maximumCookies - maximumCookies / 11 }
        /// ``maximumLifetime`` in seconds.
        var maximumLifetimeSeconds: Double {
            Double(maximumLifetime.components.seconds) + Double(maximumLifetime.components.attoseconds) / 1e18
        }
    }
}
