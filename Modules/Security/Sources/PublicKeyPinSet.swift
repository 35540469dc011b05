import Foundation

/// The public-key pins that apply to the hosts matching one pattern, until an optional expiry date.
///
/// A chain passes when any certificate of it (as sent, or as built up to its anchor) has a key
/// whose digest is any of ``pins``: list the key in use plus at least one backup key (a key you
/// hold offline, or your CA's), so a key change does not lock clients out.
///
/// Host patterns (case-insensitive): `example.com` matches only that host; `*.example.com` matches
/// exactly one more label (`api.example.com`, not `example.com` nor `a.b.example.com`);
/// `**.example.com` matches `example.com` and any depth of subdomains.
///
/// Beyond AFNetworking.
public struct PublicKeyPinSet: Sendable, Hashable, Codable {
    /// The host pattern, lower-cased.
    public let hostPattern: String
    /// The accepted keys: the current one and backups.
    public let pins: [PublicKeyPin]
    /// After this instant the set is no longer enforced (nil: never expires). Compared with the
    /// policy's verification date.
    public let expirationDate: Date?

    /// Why a pin set was refused.
    public enum DefinitionError: Error, Sendable, Hashable {
        /// The pattern is empty, or has a wildcard other than a whole `*.` / `**.` prefix.
        case invalidHostPattern(String)
        /// No pins were given.
        case noPins
        /// A pin string is malformed.
        case invalidPin(PublicKeyPin.ParseError)
    }

    /// A pin set.
    ///
    /// - Throws: ``DefinitionError``.
    public init(hostPattern: String, pins: [PublicKeyPin], expirationDate: Date? = nil) throws(DefinitionError) {
        let pattern = hostPattern.lowercased()
        guard Self.isValidPattern(pattern) else { throw .invalidHostPattern(hostPattern) }
        guard !pins.isEmpty else { throw .noPins }
        self.hostPattern = pattern
        self.pins = pins
        self.expirationDate = expirationDate
    }

    /// A pin set from `sha256/<base64>` strings.
    ///
    /// - Throws: ``DefinitionError``.
    public init(hostPattern: String, pins: [String], expirationDate: Date? = nil) throws(DefinitionError) {
        var parsed: [PublicKeyPin] = []
        for text in pins {
            do {
                parsed.append(try PublicKeyPin(text))
            } catch {
                throw .invalidPin(error)
            }
        }
        try self.init(hostPattern: hostPattern, pins: parsed, expirationDate: expirationDate)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(hostPattern: container.decode(String.self, forKey: .hostPattern),
                      pins: container.decode([PublicKeyPin].self, forKey: .pins),
                      expirationDate: container.decodeIfPresent(Date.self, forKey: .expirationDate))
    }

    /// Whether `host` (a DNS name; a trailing dot is ignored) falls under ``hostPattern``.
    public func matches(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { return false }
        if hostPattern.hasPrefix("**.") {
            let base = String(hostPattern.dropFirst(3))
            return name == base || name.hasSuffix("." + base)
        }
        if hostPattern.hasPrefix("*.") {
            let base = String(hostPattern.dropFirst(2))
            guard name.hasSuffix("." + base) else { return false }
            let label = name.dropLast(base.count + 1)
            return !label.isEmpty && !label.contains(".")
        }
        return name == hostPattern
    }

    /// Whether the set applies at `date`.
    public func isEnforced(at date: Date) -> Bool {
        expirationDate.map { date <= $0 } ?? true
    }

    private static func isValidPattern(_ pattern: String) -> Bool {
        var rest = Substring(pattern)
        if rest.hasPrefix("**.") {
            rest = rest.dropFirst(3)
        } else if rest.hasPrefix("*.") {
            rest = rest.dropFirst(2)
        }
        return !rest.isEmpty && !rest.contains("*") && !rest.hasPrefix(".") && !rest.contains("..")
    }
}
