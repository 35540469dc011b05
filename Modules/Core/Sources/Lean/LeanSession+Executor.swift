import Foundation

extension LeanSession {
    /// The session's engine thread as a Swift task executor (SE-0417).
    ///
    /// Run lean calls in a task that prefers it, and each call's continuation resumes on the engine
    /// thread in the same turn of the loop that completed the transfer, instead of being handed to
    /// another thread:
    ///
    /// ```swift
    /// await withTaskExecutorPreference(manager.session.taskExecutor) {
    ///     let (data, response) = try await manager.session.data(for: request)
    /// }
    /// ```
    ///
    /// The code of such a task runs on the engine thread between its calls, where it holds up every
    /// transfer of the session: keep it short, and do not block (no locks held long, no synchronous I/O).
    /// It suits loops that issue requests and hand results on. Each turn of the loop runs the jobs that
    /// were waiting when it began, so a task that keeps yielding does not stall transfers. After the
    /// session is invalidated and its engine has stopped, jobs run on the global concurrent executor.
    ///
    /// Threading: the executor may be used from any task.
    public var taskExecutor: any TaskExecutor {
        manager.currentEngine ?? globalConcurrentExecutor
    }
}
