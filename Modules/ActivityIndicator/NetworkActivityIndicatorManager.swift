import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Counts network activity and decides when an activity indicator should show, with AFNetworking's
/// delays: it shows only after ``activationDelay`` (1.0 s) of continuous activity, so short requests
/// never flash it, and hides ``completionDelay`` (0.17 s) after the last activity ends, so
/// back-to-back requests keep it on.
///
/// The count follows the task notifications (`.networkingTaskDidResume` increments,
/// `.networkingTaskDidSuspend` and `.networkingTaskDidComplete` decrement, only for tasks whose
/// `originalRequest` has a URL), an `AFProtocols/NetworkTaskEventSource` (see
/// ``observeTaskEvents(from:)``), or manual ``incrementActivityCount()`` / ``decrementActivityCount()``.
/// A task counts once from its resume to its suspend or completion, however many notifications it
/// posts in between.
/// Each real visibility change is reported once through ``networkActivityActionBlock`` (attach a
/// ``TerminalActivityIndicator`` for command-line tools).
///
/// ```swift
/// NetworkActivityIndicatorManager.shared.isEnabled = true
/// TerminalActivityIndicator.standardError.attach(to: .shared)
/// ```
///
/// Threading: every member is safe from any thread. The state machine runs under one lock, so
/// transitions are serialized; the action block runs on ``networkActivityActionQueue``.
public final class NetworkActivityIndicatorManager: Sendable {
    /// The instance observing `NotificationCenter.default`, with the real clock and the main queue.
    /// Disabled until you set ``isEnabled``.
    public static let shared = NetworkActivityIndicatorManager()

    private let scheduler: any DelayScheduling
    private let storage: Protected<Storage>
    private let observation: NotificationObservation

    /// Creates a manager.
    /// - Parameters:
    ///   - notificationCenter: where task notifications are observed (default `.default`).
    ///   - scheduler: the clock for the two delays (default: ``DispatchDelayScheduler``).
    ///   - actionQueue: where ``networkActivityActionBlock`` runs (default: the main queue). Use a serial
    ///     queue: the calls are enqueued in order and must run in order.
    public init(notificationCenter: NotificationCenter = .default,
                scheduler: any DelayScheduling = DispatchDelayScheduler(),
                actionQueue: DispatchQueue = .main) {
        self.scheduler = scheduler
        self.storage = Protected(Storage(actionQueue: actionQueue))
        self.observation = NotificationObservation(center: notificationCenter)
        observation.setHandler { [weak self] event in
            self?.handle(event)
        }
    }

    // MARK: - Configuration

    /// Whether the manager drives the indicator. Default `false`. Disabling hides a shown indicator at
    /// once (reported through the action block) and cancels the delays; enabling while activity is
    /// going on starts the activation delay (AFNetworking waits for the next activity change instead).
    /// The count is kept up to date either way.
    public var isEnabled: Bool {
        get { storage.withLock { $0.isEnabled } }
        set {
            storage.withLock { state in
                state.isEnabled = newValue
                updateForActivityChange(&state)
            }
        }
    }

    /// Seconds of continuous activity before the indicator shows. Default 1.0. A change applies to the
    /// next delay started.
    public var activationDelay: TimeInterval {
        get { storage.withLock { $0.activationDelay } }
        set { storage.withLock { $0.activationDelay = newValue } }
    }

    /// Seconds after the last activity ends before the indicator hides. Default 0.17. A change applies
    /// to the next delay started.
    public var completionDelay: TimeInterval {
        get { storage.withLock { $0.completionDelay } }
        set { storage.withLock { $0.completionDelay = newValue } }
    }

    /// Called with `true` when the indicator should show and `false` when it should hide, exactly once
    /// per real change of ``isNetworkActivityIndicatorVisible``, on ``networkActivityActionQueue``.
    /// Default `nil` (Linux has no system indicator, so nothing is shown). Setting it does not replay
    /// the current visibility.
    public var networkActivityActionBlock: (@Sendable (_ visible: Bool) -> Void)? {
        get { storage.withLock { $0.actionBlock } }
        set { storage.withLock { $0.actionBlock = newValue } }
    }

    /// Sets ``networkActivityActionBlock`` (AFNetworking's `setNetworkActivityActionBlock:`).
    public func setNetworkActivityActionBlock(_ block: (@Sendable (_ visible: Bool) -> Void)?) {
        networkActivityActionBlock = block
    }

    /// Sets ``networkActivityActionBlock`` and ``networkActivityActionQueue`` together, so no change
    /// reaches the new block on the old queue or the old block on the new queue.
    public func setNetworkActivityActionBlock(_ block: (@Sendable (_ visible: Bool) -> Void)?,
                                              queue: DispatchQueue) {
        storage.withLock { state in
            state.actionBlock = block
            state.actionQueue = queue
        }
    }

    /// The queue ``networkActivityActionBlock`` runs on. Default: the main queue. Must be serial so the
    /// show/hide calls keep their order.
    public var networkActivityActionQueue: DispatchQueue {
        get { storage.withLock { $0.actionQueue } }
        set { storage.withLock { $0.actionQueue = newValue } }
    }

    // MARK: - State

    /// The number of activities going on; never below zero.
    public var activityCount: Int {
        storage.withLock { $0.activityCount }
    }

    /// Whether the indicator is shown now: true from the moment the manager enters ``NetworkActivityManagerState/active``
    /// until it returns to ``NetworkActivityManagerState/notActive``. Changes are reported through
    /// ``networkActivityActionBlock``, which may run a moment later on its queue.
    public var isNetworkActivityIndicatorVisible: Bool {
        storage.withLock { $0.isVisible }
    }

    /// Where the manager is in its show/hide cycle.
    public var currentState: NetworkActivityManagerState {
        storage.withLock { $0.state }
    }

    /// How many completions that arrived before their task's resume are remembered (for tests).
    var earlyCompletionCount: Int {
        storage.withLock { $0.completedBeforeResume.count }
    }

    // MARK: - Counting

    /// Records that an activity began.
    public func incrementActivityCount() {
        storage.withLock { state in
            state.activityCount += 1
            updateForActivityChange(&state)
        }
    }

    /// Records that an activity ended. Extra calls leave the count at zero.
    public func decrementActivityCount() {
        storage.withLock { state in
            state.activityCount = max(state.activityCount - 1, 0)
            updateForActivityChange(&state)
        }
    }

    // MARK: - Task events

    /// Counts the tasks of `source` until its stream finishes or the calling task is cancelled:
    /// `.resumed` increments, `.suspended` and `.completed` decrement, for tasks whose
    /// `originalRequest` has a URL. Run it in a `Task` of its own. Events from before the call are not
    /// seen; to subscribe at a precise moment, take the stream yourself and pass it to
    /// ``observeTaskEvents(_:)``.
    public func observeTaskEvents(from source: any NetworkTaskEventSource) async {
        await observeTaskEvents(source.taskEvents())
    }

    /// Counts the tasks of an event stream (from `AFProtocols/NetworkTaskEventSource/taskEvents()`) until it
    /// finishes or the calling task is cancelled, as ``observeTaskEvents(from:)``.
    public func observeTaskEvents(_ events: AsyncStream<NetworkTaskEvent>) async {
        for await event in events {
            handle(event)
        }
    }

    /// Applies one task event. A task counts once while it runs: a second resume without a suspend in
    /// between does not count it twice, and a completion after a suspend does not uncount it twice
    /// (AFNetworking would decrement twice there, hiding other tasks' activity early).
    ///
    /// A session may post a task's resume after handing the task to its engine, so a fast request's
    /// completion can arrive first; that completion is remembered (weakly, until the task goes away) and
    /// the late resume is then not counted, which would otherwise keep the indicator on forever.
    func handle(_ event: NetworkTaskEvent) {
        guard event.task.originalRequest?.url != nil else { return }
        let task = ObjectIdentifier(event.task)
        storage.withLock { state in
            switch event {
            case .resumed(let resumed):
                if let early = state.completedBeforeResume.removeValue(forKey: task), early.task === resumed {
                    return
                }
                guard state.runningTasks.insert(task).inserted else { return }
                state.activityCount += 1
            case .suspended:
                guard state.runningTasks.remove(task) != nil else { return }
                state.activityCount = max(state.activityCount - 1, 0)
            case .completed(let completed, _):
                guard state.runningTasks.remove(task) != nil else {
                    state.rememberCompletedBeforeResume(completed)
                    return
                }
                state.activityCount = max(state.activityCount - 1, 0)
            }
            updateForActivityChange(&state)
        }
    }

    // MARK: - The state machine (always called with the lock held)

    private func updateForActivityChange(_ state: inout Storage) {
        guard state.isEnabled else {
            transition(&state, to: .notActive)
            return
        }
        let isActivityOccurring = state.activityCount > 0
        switch state.state {
        case .notActive:
            if isActivityOccurring { transition(&state, to: .delayingStart) }
        case .delayingStart:
            break // the activation delay decides
        case .active:
            if !isActivityOccurring { transition(&state, to: .delayingEnd) }
        case .delayingEnd:
            if isActivityOccurring { transition(&state, to: .active) }
        }
    }

    private func transition(_ state: inout Storage, to newState: NetworkActivityManagerState) {
        guard state.state != newState else { return }
        state.state = newState
        switch newState {
        case .notActive:
            state.cancelActivationDelay()
            state.cancelCompletionDelay()
            setVisible(&state, false)
        case .delayingStart:
            state.timerGeneration &+= 1
            let generation = state.timerGeneration
            state.activationDelayTimer = scheduler.schedule(after: state.activationDelay) { [weak self] in
                self?.activationDelayFired(generation: generation)
            }
        case .active:
            state.cancelCompletionDelay()
            setVisible(&state, true)
        case .delayingEnd:
            state.timerGeneration &+= 1
            let generation = state.timerGeneration
            state.completionDelayTimer = scheduler.schedule(after: state.completionDelay) { [weak self] in
                self?.completionDelayFired(generation: generation)
            }
        }
    }

    // A timer that was cancelled may still fire (a real clock can be mid-dispatch); the generation tells
    // a stale firing from the current one.
    private func activationDelayFired(generation: UInt64) {
        storage.withLock { state in
            guard state.state == .delayingStart, state.timerGeneration == generation else { return }
            state.activationDelayTimer = nil
            transition(&state, to: state.activityCount > 0 ? .active : .notActive)
        }
    }

    private func completionDelayFired(generation: UInt64) {
        storage.withLock { state in
            guard state.state == .delayingEnd, state.timerGeneration == generation else { return }
            state.completionDelayTimer = nil
            transition(&state, to: .notActive)
        }
    }

    private func setVisible(_ state: inout Storage, _ visible: Bool) {
        guard state.isVisible != visible else { return }
        state.isVisible = visible
        // Enqueued under the lock so calls reach the (serial) queue in the order the changes happened.
        if let block = state.actionBlock {
            state.actionQueue.async { block(visible) }
        }
    }
}

/// Everything the lock protects.
private struct Storage {
    var isEnabled = false
    var activationDelay: TimeInterval = 1.0
    var completionDelay: TimeInterval = 0.17
    var actionBlock: (@Sendable (Bool) -> Void)?
    var actionQueue: DispatchQueue
    var activityCount = 0
    var runningTasks: Set<ObjectIdentifier> = []
    var completedBeforeResume: [ObjectIdentifier: WeakNetworkTask] = [:]
    var state = NetworkActivityManagerState.notActive
    var isVisible = false
    var activationDelayTimer: (any ScheduledDelay)?
    var completionDelayTimer: (any ScheduledDelay)?
    var timerGeneration: UInt64 = 0
    var pruneThreshold = 64

    init(actionQueue: DispatchQueue) {
        self.actionQueue = actionQueue
    }

    /// Remembers a task whose completion came without a resume seen before it. Entries of tasks that no
    /// longer exist are dropped as the table grows, so it holds at most about twice the live tasks.
    mutating func rememberCompletedBeforeResume(_ task: any NetworkTask) {
        if completedBeforeResume.count >= pruneThreshold {
            completedBeforeResume = completedBeforeResume.filter { $0.value.task != nil }
            pruneThreshold = max(64, completedBeforeResume.count * 2)
        }
        completedBeforeResume[ObjectIdentifier(task)] = WeakNetworkTask(task: task)
    }

    mutating func cancelActivationDelay() {
        activationDelayTimer?.cancel()
        activationDelayTimer = nil
    }

    mutating func cancelCompletionDelay() {
        completionDelayTimer?.cancel()
        completionDelayTimer = nil
    }
}

/// A task referenced without keeping it alive (an identifier alone could be reused by a later task).
private struct WeakNetworkTask {
    weak var task: (any NetworkTask)?
}
