import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request serializer's default headers (AFHTTPRequestSerializer's `HTTPRequestHeaders`): names compare
/// case-insensitively, as HTTP's do, and each is kept with the spelling it was last set with.
///
/// Threading: a value; serializers keep it behind their own lock.
public struct DefaultHTTPHeaders: Sendable, Equatable {
    private struct Entry: Sendable, Equatable {
        var field: String
        var value: String
    }

    /// Keyed by the lower-cased name.
    private var entries: [String: Entry] = [:]

    /// No headers.
    public init() {}

    /// The value for `field` (any case); setting nil removes it.
    public subscript(field: String) -> String? {
        get { entries[field.lowercased()]?.value }
        set {
            if let newValue {
                entries[field.lowercased()] = Entry(field: field, value: newValue)
            } else {
                entries[field.lowercased()] = nil
            }
        }
    }

    /// Every header under the spelling it was last set with.
    public var fields: [String: String] {
        Dictionary(entries.values.map { ($0.field, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// `request` with every header it lacks (compared case-insensitively); its own values win.
    public func applied(to request: URLRequest) -> URLRequest {
        var request = request
        for entry in entries.values where request.value(forHTTPHeaderField: entry.field) == nil {
            request.setValue(entry.value, forHTTPHeaderField: entry.field)
        }
        return request
    }
}
