import Foundation

/// A response serializer that can be archived inside a compound serializer (AFNetworking archives its
/// compound's list with `NSSecureCoding`): `Codable`, with a stable name written beside its value.
public protocol ArchivableResponseSerializer: ResponseSerializing, Codable {
    /// The name archives tag this type with (stable across releases: archives outlive processes).
    static var archiveName: String { get }
}

/// The serializer types an archive may name: the `Codable` counterpart of `NSSecureCoding`'s allowed
/// classes. Decoding instantiates only types registered here, so a tampered archive can name nothing
/// else; an unknown name is a `DecodingError`, never a crash.
///
/// Every module registers its own serializers (AFResponseSerialization's when a compound is decoded,
/// AFImageLoading's when an `ImageResponseSerializer` is created); register other types, your own
/// included, before decoding an archive that names them. Encoding registers the types it writes.
///
/// Threading: registration and lookup are thread-safe.
public enum ResponseSerializerArchive {
    private static let types = Protected<[String: any ArchivableResponseSerializer.Type]>([:])

    /// Allows `type` in archives under its ``ArchivableResponseSerializer/archiveName``. Registering a type
    /// again is harmless; a different type under a taken name is ignored (the first keeps the name).
    public static func register(_ type: any ArchivableResponseSerializer.Type) {
        types.withLock { types in
            if types[type.archiveName] == nil { types[type.archiveName] = type }
        }
    }

    /// The registered type named `name`, or nil.
    public static func registeredType(named name: String) -> (any ArchivableResponseSerializer.Type)? {
        types.withLock { $0[name] }
    }
}

/// One archived serializer: `{"type": archiveName, "value": …}`.
public struct ArchivedResponseSerializer: Codable, Sendable {
    /// The serializer archived or restored.
    public let serializer: any ArchivableResponseSerializer

    /// Wraps `serializer` for archiving (and registers its type).
    /// - Throws: `EncodingError.invalidValue` when it is not an ``ArchivableResponseSerializer``.
    public init(_ serializer: any ResponseSerializing) throws {
        guard let archivable = serializer as? any ArchivableResponseSerializer else {
            throw EncodingError.invalidValue(serializer, EncodingError.Context(
                codingPath: [], debugDescription: "\(type(of: serializer)) is not an ArchivableResponseSerializer"))
        }
        ResponseSerializerArchive.register(type(of: archivable))
        self.serializer = archivable
    }

    private enum CodingKeys: String, CodingKey { case type, value }

    /// - Throws: `DecodingError.dataCorrupted` when the archive names a type that is not registered.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .type)
        guard let type = ResponseSerializerArchive.registeredType(named: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription: "No archivable response serializer is registered as \"\(name)\" (ResponseSerializerArchive.register)")
        }
        serializer = try Self.decodeValue(of: type, from: container)
    }

    private static func decodeValue<T: ArchivableResponseSerializer>(
        of type: T.Type, from container: KeyedDecodingContainer<CodingKeys>) throws -> any ArchivableResponseSerializer {
        try container.decode(T.self, forKey: .value)
    }

    /// Writes the type's archive name and the serializer's own encoding.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type(of: serializer).archiveName, forKey: .type)
        try container.encode(serializer, forKey: .value)
    }
}
