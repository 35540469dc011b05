#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Standard input a line at a time (without its line feed, or its CR LF), read on a queue of its own: a
/// read blocks its thread until a line comes, which the cooperative pool's threads must not do.
///
/// Read with read(2), not stdio: a thread blocked in stdio's `getline` (Swift's `readLine`) holds the
/// `stdin` stream's lock, and from glibc 2.41 (Debian 13) `exit` flushes input streams too, so the
/// process could not exit (after the server closed the connection) until another line or the end of the
/// input came.
///
/// Threading: `next()` from any task; the buffer is touched only on `queue`, hence `@unchecked Sendable`.
final class StandardInputLines: @unchecked Sendable {
    private let queue = DispatchQueue(label: "af.stdin")
    /// Bytes read and not yet returned (`queue` only).
    private var pending: [UInt8] = []
    /// The input ended or failed (`queue` only).
    private var ended = false
    private let descriptor: Int32

    /// Lines of the file descriptor `descriptor` (standard input by default).
    init(descriptor: Int32 = 0) {
        self.descriptor = descriptor
    }

    /// The next line, or nil at the end of the input. A last line without a line feed is still a line.
    func next() async -> String? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.readLine()) }
        }
    }

    private func readLine() -> String? {
        var searched = 0
        while true {
            if let newline = pending[searched...].firstIndex(of: 0x0A) {
                let end = newline > 0 && pending[newline - 1] == 0x0D ? newline - 1 : newline
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            searched = pending.count
            if ended {
                guard !pending.isEmpty else { return nil }
                defer { pending.removeAll() }
                return String(decoding: pending, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                pending.append(contentsOf: chunk[..<count])
            } else if count == 0 || errno != EINTR {
                ended = true
            }
        }
    }
}
