import Foundation
import AFProtocols

/// Writing the jar's file: off the request path, batched, private.
extension CookieJar {
    /// Writes the persistent cookies now if any changed since the last write, waiting for a write under
    /// way. Call it before a process that must keep its cookies exits without running `atexit` handlers
    /// (``shared`` flushes itself at a normal exit).
    /// - Throws: the file system's error (a `CocoaError`); the cookies stay in memory and the next change
    ///   tries again.
    public func flush() throws {
        try writer.sync { try writeIfDirty() }
    }

    /// ``flush()``, for the exit handler.
    func flushIgnoringErrors() {
        try? flush()
    }

    /// Schedules one write ``writeDelay`` from now on the writer queue.
    func scheduleWrite() {
        let delay = writeDelay.components
        let nanoseconds = Int(clamping: delay.seconds) &* 1_000_000_000 &+ Int(delay.attoseconds / 1_000_000_000)
        writer.asyncAfter(deadline: .now() + .nanoseconds(max(0, nanoseconds))) { [weak self] in
            try? self?.writeIfDirty()
        }
    }

    /// On the writer queue: takes the persistent cookies under the lock, then writes them with the lock
    /// released (the directory 0700, the file 0600, replaced atomically).
    private func writeIfDirty() throws {
        guard let persistentStoreURL else { return }
        let now = Date()
        let snapshot: [StoredCookie]? = state.withLock { state in
            state.writeScheduled = false
            guard state.isDirty else { return nil }
            state.isDirty = false
            return state.store.allCookies(now: now).filter(\.isPersistent)
        }
        guard let snapshot else { return }
        do {
            let directory = persistentStoreURL.deletingLastPathComponent().path
            guard PrivateFiles.makeDirectory(atPath: directory) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: directory])
            }
            try PrivateFiles.write(CookieFile.encode(snapshot), toPath: persistentStoreURL.path)
        } catch {
            state.withLock { $0.isDirty = true }
            throw error
        }
    }
}
