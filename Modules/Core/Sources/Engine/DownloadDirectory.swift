import Foundation

/// Where download tasks write their temporary files: a directory of this user's own inside the temporary
/// directory (`AFNetworking-downloads-<uid>`, mode 0700), the same for every session of the user so
/// resume data can continue in another process. Resume data may name only files directly inside it.
enum DownloadDirectory {
    /// The directory's path (not created).
    static let path: String = {
        let base = (NSTemporaryDirectory() as NSString).standardizingPath
        return (base as NSString).appendingPathComponent("AFNetworking-downloads-\(geteuid())")
    }()

    /// The directory's path, created if missing; nil when the path exists but is not a private directory
    /// of this user (a link, another user's directory, or one others can write to).
    static func prepared() -> String? {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
              info.st_mode & 0o077 == 0 else { return nil }
        return path
    }

    /// A new download file name: `CFNetworkDownload_<UUID>.tmp`, as Foundation names them.
    static func newFileName() -> String { "CFNetworkDownload_\(UUID().uuidString).tmp" }

    /// Whether `name` is a name ``newFileName()`` gives (so no path, no `..`, nothing else).
    static func isDownloadFileName(_ name: String) -> Bool {
        let prefix = "CFNetworkDownload_", suffix = ".tmp"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
        let middle = name.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)
        return middle.count == 36 && UUID(uuidString: String(decoding: middle, as: UTF8.self)) != nil
    }
}
