import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps a `URLCache`'s disk directory readable by this user only.
///
/// Foundation's `URLCache` on Linux creates its directory (by default
/// `<caches>/org.swift.foundation.URLCache/<process>`, the one `URLCache.shared` and so
/// `URLSessionConfiguration.default` use) and writes its entries with the umask's modes: 0755 and 0644
/// under the usual 022, so another local user could read every cached response. Before a session uses a
/// cache, its directory is made 0700 (and Foundation's own `org.swift.foundation.URLCache` parent, which
/// otherwise lists the programs that cache), and the entries already in it 0600. Entries Foundation writes
/// later keep its 0644, inside a directory no one else can enter.
enum URLCacheDirectory {
    /// The name of the directory Foundation keeps its default caches in.
    static let foundationDirectoryName = "org.swift.foundation.URLCache"

    /// The directory `cache` keeps its entries in, when it keeps them on disk in a place we can find.
    static func path(of cache: URLCache) -> String? {
        // Foundation's URLCache (and every subclass of it) keeps the directory it made in `cacheDirectory`.
        var mirror: Mirror? = Mirror(reflecting: cache)
        while let current = mirror {
            for child in current.children where child.label == "cacheDirectory" {
                if let url = child.value as? URL { return url.path }
                if let url = child.value as? URL?, let url { return url.path }
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// Makes `cache`'s directory (and Foundation's parent directory of its default caches) 0700 and the
    /// entries in it 0600 (a directory listing: Foundation lists it on every lookup anyway); a directory
    /// that is another user's or a link is left as it is.
    static func restrict(_ cache: URLCache) {
        guard let directory = path(of: cache).map({ ($0 as NSString).standardizingPath }),
              PrivateFiles.restrictDirectory(atPath: directory) else { return }
        PrivateFiles.restrictFiles(inDirectory: directory)
        let parent = (directory as NSString).deletingLastPathComponent
        if (parent as NSString).lastPathComponent == foundationDirectoryName {
            PrivateFiles.restrictDirectory(atPath: parent)
        }
    }
}
