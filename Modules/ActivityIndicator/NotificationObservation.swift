import Foundation
import AFProtocols

/// The manager's subscription to the three task notifications; removed when the manager goes away.
final class NotificationObservation: Sendable {
    private let center: NotificationCenter
    private let handler = Protected<(@Sendable (NetworkTaskEvent) -> Void)?>(nil)
    // Observer tokens are not Sendable; they are written once in init and read once in deinit, when no
    // other reference to self exists.
    nonisolated(unsafe) private var tokens: [any NSObjectProtocol] = []

    /// Subscribes to `center` now; notifications are dropped until ``setHandler(_:)``.
    init(center: NotificationCenter) {
        self.center = center
        let subscriptions: [(Notification.Name, @Sendable (any NetworkTask) -> NetworkTaskEvent)] = [
            (.networkingTaskDidResume, { .resumed($0) }),
            (.networkingTaskDidSuspend, { .suspended($0) }),
            (.networkingTaskDidComplete, { .completed($0, error: $0.error) }),
        ]
        tokens = subscriptions.map { name, makeEvent in
            center.addObserver(forName: name, object: nil, queue: nil) { [weak self] notification in
                guard let self, let task = notification.object as? any NetworkTask else { return }
                self.handler.withLock { $0 }?(makeEvent(task))
            }
        }
    }

    /// Sets what receives each notification whose object is a ``AFProtocols/NetworkTask``, as an event,
    /// on the posting thread.
    func setHandler(_ newHandler: @escaping @Sendable (NetworkTaskEvent) -> Void) {
        handler.withLock { $0 = newHandler }
    }

    deinit {
        for token in tokens {
            center.removeObserver(token)
        }
    }
}
