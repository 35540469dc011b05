import Foundation

/// Directories and files readable by this user only, whatever the umask: what the modules' caches
/// (the session's `URLCache` directory, the image downloader's caches, `af --cache`) are kept in, as
/// the download directory is. Directories are 0700 and files 0600.
///
/// Only what this user owns is changed, and never through a symbolic link: a path that is a link or
/// another user's is left alone (and reported as not private).
package enum PrivateFiles {
    /// The mode of a private directory.
    package static let directoryMode: mode_t = 0o700
    /// The mode of a private file.
    package static let fileMode: mode_t = 0o600

    /// Creates `path` and any missing parents with mode 0700 (as `mkdir -p -m 0700` would, but for every
    /// component it creates); an existing `path` of this user's is changed to 0700. Parents that exist are
    /// left as they are.
    /// - Returns: whether `path` is now a directory of this user's with mode 0700.
    @discardableResult
    package static func makeDirectory(atPath path: String) -> Bool {
        let standardized = (path as NSString).standardizingPath
        guard !standardized.isEmpty else { return false }
        var missing: [String] = []
        var current = standardized
        var info = stat()
        // Walk up to the first component that exists, then create the missing ones top down.
        while lstat(current, &info) != 0 && errno == ENOENT {
            missing.append(current)
            let parent = (current as NSString).deletingLastPathComponent
            if parent == current || parent.isEmpty { break }
            current = parent
        }
        for directory in missing.reversed() where mkdir(directory, directoryMode) != 0 && errno != EEXIST {
            return false
        }
        return restrictDirectory(atPath: standardized)
    }

    /// Makes `path` mode 0700 when it is a directory of this user's (not a link).
    /// - Returns: whether `path` is now a directory of this user's that others cannot enter.
    @discardableResult
    package static func restrictDirectory(atPath path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else { return false }
        if info.st_mode & 0o777 != directoryMode && chmod(path, directoryMode) != 0 { return false }
        return true
    }

    /// Makes every regular file of this user's directly inside `path` mode 0600 (links and
    /// subdirectories are left alone).
    package static func restrictFiles(inDirectory path: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names {
            let file = (path as NSString).appendingPathComponent(name)
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
                  info.st_mode & 0o777 != fileMode else { continue }
            _ = chmod(file, fileMode)
        }
    }

    /// Writes `data` to `path` as a new file of mode 0600, atomically: a temporary file beside it, created
    /// with that mode (never wider, whatever the umask), renamed over `path` once complete.
    /// - Throws: a `CocoaError` (`.fileWriteUnknown` with the POSIX error underneath) when a step fails;
    ///   nothing is left behind.
    package static func write(_ data: Data, toPath path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory as NSString).appendingPathComponent(".\(UUID().uuidString).tmp")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard descriptor >= 0 else { throw writeError(path) }
        var failed = false
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    return
                }
                offset += written
            }
        }
        // The mode given to open is filtered by the umask, which can only narrow it; make it exact.
        if !failed && fchmod(descriptor, fileMode) != 0 { failed = true }
        if close(descriptor) != 0 { failed = true }
        if failed || rename(temporary, path) != 0 {
            let error = writeError(path)
            unlink(temporary)
            throw error
        }
    }

    private static func writeError(_ path: String) -> CocoaError {
        let code = errno
        return CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: path,
            NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code)),
        ])
    }
}
