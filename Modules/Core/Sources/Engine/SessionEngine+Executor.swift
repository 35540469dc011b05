import Foundation

/// The engine thread as a Swift task executor (SE-0417).
///
/// A task that prefers it (`withTaskExecutorPreference(session.taskExecutor)`) runs its code on the
/// engine thread, so the continuation of a lean call resumes in the same turn of the loop that completed
/// the transfer: no hand-off to another thread and no wake-up. Jobs enqueued from the engine thread
/// itself (a continuation resumed there) run at the end of the current turn; jobs from other threads
/// arrive with the commands. Each turn runs the jobs that were waiting when it began, so a task that
/// keeps enqueueing cannot hold the loop. Once the engine stopped, jobs go to the global executor.
extension SessionEngine: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if confinement.isOnOwner && !loopEnded {
            pendingJobs.append(job)
        } else if confinement.isOnOwner || !sendJob(job) {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Runs the jobs waiting now (engine thread).
    func runPendingJobs() {
        guard !pendingJobs.isEmpty else { return }
        confinement.assertOnOwner("running executor jobs")
        swap(&pendingJobs, &runningJobs)
        let executor = asUnownedTaskExecutor()
        for job in runningJobs { job.runSynchronously(on: executor) }
        runningJobs.removeAll(keepingCapacity: true)
    }
}
