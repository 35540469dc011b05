import AFNetworking
import Foundation

extension URLSessionManager {
    /// Invalidates the session, cancelling what still runs, and returns once the engine thread has
    /// finished and `completionQueue` (when given) has drained. A command-line tool calls this before it exits:
    /// process exit tears down Foundation's ICU data, and a session thread still inside Foundation
    /// at that moment would crash the process.
    func shutDown(draining completionQueue: DispatchQueue?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var hooks = self.hooks
            hooks.sessionDidBecomeInvalid = { _, _ in continuation.resume() }
            self.hooks = hooks
            invalidateSession(cancelingTasks: true)
        }
        completionQueue?.sync {}
    }
}
