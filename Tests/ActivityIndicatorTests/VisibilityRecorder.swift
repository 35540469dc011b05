import Dispatch
import Foundation
import Synchronization
import AFActivityIndicator

/// Collects what a manager's action block reports, on a private serial queue.
final class VisibilityRecorder: Sendable {
    let queue = DispatchQueue(label: "activity-indicator-tests.recorder")
    private let recorded = Mutex<[Bool]>([])

    /// Installs itself as `manager`'s action block, on its own queue.
    func attach(to manager: NetworkActivityIndicatorManager) {
        manager.setNetworkActivityActionBlock({ [self] visible in record(visible) }, queue: queue)
    }

    /// Appends one call.
    func record(_ visible: Bool) {
        recorded.withLock { $0.append(visible) }
    }

    /// Every call so far, after letting calls already enqueued run.
    var calls: [Bool] {
        queue.sync {}
        return recorded.withLock { $0 }
    }
}

/// An enabled manager on a manual clock, observing a private notification center, with a recorder.
struct ManagerFixture {
    let clock = ManualClock()
    let center = NotificationCenter()
    let recorder = VisibilityRecorder()
    let manager: NetworkActivityIndicatorManager

    init(enabled: Bool = true) {
        manager = NetworkActivityIndicatorManager(notificationCenter: center, scheduler: clock)
        manager.isEnabled = enabled
        recorder.attach(to: manager)
    }
}
