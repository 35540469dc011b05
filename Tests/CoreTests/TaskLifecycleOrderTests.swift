import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

@Suite(.serialized) struct TaskLifecycleOrderTests {
    /// Observers must hear a task's "resumed" before the engine can complete it, however slow they are
    /// (the activity indicator's count depends on it). A deliberately slow resume observer makes the
    /// race certain: were the task started before the notification, the engine would finish this
    /// one-byte request while the observer sleeps.
    @Test func resumeIsAnnouncedBeforeTheTransferStarts() async throws {
        let manager = makeManager()
        let marker = "lifecycle-order-\(UUID())"
        let announced = Protected(Set<Int>())
        let completedUnannounced = Protected([Int]())
        let observer = NotificationCenter.default.addObserver(forName: .networkingTaskDidResume, object: nil, queue: nil) { note in
            guard let task = note.object as? SessionTask, task.taskDescription == marker else { return }
            Thread.sleep(forTimeInterval: 0.2)
            announced.withLock { _ = $0.insert(task.taskIdentifier) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        var hooks = manager.hooks
        hooks.taskDidComplete = { task, _ in
            if !announced.withLock({ $0.contains(task.taskIdentifier) }) {
                completedUnannounced.withLock { $0.append(task.taskIdentifier) }
            }
        }
        manager.hooks = hooks

        for _ in 0..<3 {
            let result: Completion = await withCheckedContinuation { continuation in
                let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1"))) { response, object, error in
                    continuation.resume(returning: Completion(response: response as? HTTPURLResponse, object: object, error: error))
                }
                task.taskDescription = marker
                task.resume()
            }
            #expect(result.response?.statusCode == 200)
        }
        #expect(completedUnannounced.withLock { $0 }.isEmpty)
        #expect(announced.withLock { $0.count } == 3)
        manager.invalidateSession(cancelingTasks: true, resetSession: false)
    }
}
