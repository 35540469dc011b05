import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols
import Synchronization

/// A session's transfer engine: one thread driving libcurl multi handles (one, or more past
/// ``transfersPerMulti`` transfers in flight: SessionEngine+Multis.swift).
///
/// Other threads only enqueue commands (under a lock) and wake the loop's epoll wait (an eventfd); the
/// engine thread owns the multi handle, every easy handle and every ``Transfer``. libcurl is driven
/// through its socket interface (CCurlShim's SocketLoop.c): a turn hands it the sockets that are ready
/// and its due timer, so it costs what is ready, not what is open. Connections stay in
/// the multi handles' caches, so consecutive requests to a host reuse them (and multiplex over HTTP/2).
final class SessionEngine: @unchecked Sendable {
    // @unchecked Sendable: `inbox` is lock-guarded (Protected); `socketLoop` is only woken off the engine
    // thread (a write to its eventfd), by a sender counted in `wakesInFlight`, which shutDown() waits out;
    // every other var is touched only on the engine thread.
    // The tables and queues every request passes through are `@exclusivity(unchecked)`: touched on this
    // one thread, and no access to them spans a call that reaches them again (see `Transfer`'s note).

    enum Command {
        case start(SessionTask)
        case pause(SessionTask)
        case unpause(SessionTask)
        case cancel(SessionTask)
        case invalidate(cancelingTasks: Bool)
        case localLoadEvent(ObjectIdentifier, LocalLoadEvent)
        case bodyReady(SessionTask)
        case connectivityChanged
        case finished(FinishedTransfer)
        /// A job of a task that prefers the engine as its executor (SessionEngine+Executor.swift).
        case run(UnownedJob)
        /// An upgraded connection to open, or to write, read or close as its state says
        /// (Upgrade/SessionEngine+Upgrades.swift).
        case upgrade(UpgradeCommand, UpgradedConnection)
    }

    enum UpgradeCommand { case open, service }

    /// What a sender has to do after queueing a command.
    private enum Wake { case none, wakeEngine, wakeUpgradeWatch(Int32), startThread }

    private struct Inbox {
        var commands: [Command] = []
        var threadStarted = false
        var invalidated = false
        var invalidationSent = false
        /// The loop ended and the multi handle is gone: nothing may be sent any more.
        var stopped = false
        /// The engine sleeps in epoll on its upgraded sockets alone: a sender wakes it by writing to this
        /// eventfd, as the loop's own eventfd would not reach it (-1: it does not).
        var upgradeWatchWake: Int32 = -1
    }

    /// The multi handles the engine's transfers are spread over (see SessionEngine+Multis.swift), and how
    /// many transfers each holds; the first is made with the engine, the others when it fills up.
    @exclusivity(unchecked) var multis: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) var multiLoads: [Int] = []
    /// libcurl's socket interface over epoll for every one of `multis` (freed with the engine).
    let socketLoop: OpaquePointer
    let settings: EngineSettings
    private(set) weak var events: (any EngineEvents)?
    private let inbox = Protected(Inbox())
    /// Whether a command waits in the inbox (any thread).
    var hasWaitingCommands: Bool { inbox.withLock { !$0.commands.isEmpty } }
    /// Senders that decided, under the inbox lock, to wake the engine and have not yet returned from
    /// the wake-up, which they send after releasing the lock: the woken engine takes that lock first, so
    /// waking it with the lock still held made it sleep a second time, on the lock. shutDown() ends the
    /// loop only once this is 0.
    private let wakesInFlight = Atomic<Int>(0)
    /// How many times a sender woke the engine from its sleep on upgraded sockets alone (tests read it).
    let upgradeWatchWakes = Atomic<Int>(0)
    /// How many multi handles the loop drives (tests read it).
    let multiHandleCount = Atomic<Int>(0)
    let trustContext = ServerTrustContext()
    /// The session's busy-poll window, which the manager keeps in step with its settings.
    let busyPolling: BusyPolling
    /// How long the loop recently waited for work (engine thread).
    @exclusivity(unchecked) var idleGaps = IdleGaps()

    /// The engine thread, asserted wherever the state below is touched (debug builds).
    let confinement = ThreadConfinement()
    /// The loop's "now", read once per turn (see ``EngineClock``).
    let clock = EngineClock()
    /// Streamed bodies' heads that arrived this turn, their callers woken once the turn's transfers ran.
    let streamHeads = StreamHeadQueue()
    /// How often at most transfers' idle timers are checked (the progress and write callbacks only stamp
    /// activity): 100 ms, so a timer expires at most that late.
    static let idleCheckInterval: UInt64 = 100_000_000
    /// When transfers' idle timers were last checked (monotonic nanoseconds).
    @exclusivity(unchecked) var lastIdleCheck: UInt64 = 0
    /// When the earliest idle timer may expire (monotonic nanoseconds; `.max`: no timer runs). Activity
    /// only moves timers later, so a check at this time finds the expired ones or the next earliest.
    @exclusivity(unchecked) var nextIdleCheck: UInt64 = .max
    /// The command buffer swapped with the inbox's each turn, so neither allocates.
    @exclusivity(unchecked) private var takenCommands: [Command] = []
    /// Jobs of tasks that prefer the engine as their executor, run once per turn (see
    /// SessionEngine+Executor.swift), and the buffer they are swapped into to run.
    @exclusivity(unchecked) var pendingJobs: [UnownedJob] = []
    @exclusivity(unchecked) var runningJobs: [UnownedJob] = []
    /// The loop ended: jobs enqueued on the engine thread now go to the global executor.
    var loopEnded = false
    /// The engine thread queued a command for itself this turn (without waking the poll).
    private var sentToSelf = false

    // Engine thread only
    @exclusivity(unchecked) var transfersByTask: [ObjectIdentifier: Transfer] = [:]
    @exclusivity(unchecked) var transfersByHandle: [UnsafeMutableRawPointer: Transfer] = [:]
    @exclusivity(unchecked) var idleHandles: [(handle: UnsafeMutableRawPointer, state: HandleState)] = []
    @exclusivity(unchecked) var throttleTimers: [(deadline: ContinuousClock.Instant, transfer: Transfer)] = []
    /// What a transfer whose data task became a download tells the engine: one closure for all of them
    /// (a closure made per transfer was an allocation per request).
    private(set) lazy var transferBecameDownload: (Transfer, SessionTask) -> Void = { [unowned self] transfer, dataTask in
        transfersByTask[ObjectIdentifier(dataTask)] = nil
        transfersByTask[ObjectIdentifier(transfer.task)] = transfer
        admission.transfer(from: dataTask, to: transfer.task)
    }
    /// Upgraded connections (a WebSocket's), by identity and by their easy handle, while open.
    var upgrades: [ObjectIdentifier: UpgradedConnection] = [:]
    var upgradesByHandle: [UnsafeMutableRawPointer: UpgradedConnection] = [:]
    /// The multi handle upgraded connections connect on: their own, without the per-host connection
    /// bound, so that open WebSockets neither hold back the session's requests to their host nor wait for
    /// them (a connect-only connection stays in use until it closes). Made on first use.
    var upgradeMultiStorage: UnsafeMutableRawPointer?
    /// Upgraded connections libcurl is still connecting (the loop then drives `upgradeMulti` and polls often).
    var connectingUpgrades = 0
    /// Where upgraded connections' bytes are read into (engine thread; made on first use, freed with the engine).
    var upgradeReadStorage: UnsafeMutableRawBufferPointer?
    /// The connection being serviced (engine thread): what its handler sends from inside a read is written
    /// before the service ends, without a wake-up or another turn of the loop.
    var servicingUpgrade: UpgradedConnection?
    /// Upgraded connections' sockets, watched with epoll (``UpgradeSocketWatch``), and the connections by
    /// socket while watched or being opened.
    var upgradeWatch = UpgradeSocketWatch()
    var upgradesBySocket: [Int32: UpgradedConnection] = [:]
    /// The upgraded connections' epoll descriptor as the loop's wait watches it (-1: not watched), and
    /// what epoll found ready (kept between turns: no allocation per turn).
    var watchedUpgradeDescriptor: Int32 = -1
    var readyUpgrades: [UpgradeSocketWatch.Ready] = []
    /// Transfers that ended in this round of the loop, reported together (one hand-off, not one each).
    @exclusivity(unchecked) var finishedTransfers: [FinishedTransfer] = []
    /// Tasks held back by the per-host connection limit, started in priority order.
    let admission: HostAdmission
    /// Tasks a local load answers (`SessionPlugins.localResponder`), by their load.
    @exclusivity(unchecked) var localLoads: [ObjectIdentifier: LocalLoadState] = [:]
    /// Tasks waiting for the network (`waitsForConnectivity`), and each one's resource deadline.
    @exclusivity(unchecked) var connectivityWaits: [ConnectivityWait] = []
    @exclusivity(unchecked) var connectivityDeadlines: [ObjectIdentifier: ContinuousClock.Instant] = [:]
    /// Sockets libcurl has open for this engine (its connections), kept by the socket loop's callbacks.
    var openSockets: Int { afc_socket_loop_open_sockets(socketLoop).pointee }
    /// The gauges' last reported values (open connections, waiting tasks).
    var reportedGauges = (connections: 0, waiting: 0)
    /// The reachability monitor whose notifications wake waiting tasks, while any wait.
    var observedMonitor: (any NetworkReachabilityMonitoring)?
    var connectivityObserver: (any NSObjectProtocol)?
    var invalidating = false
    var cancelOnInvalidate = false
    static let maximumIdleHandles = 64

    init(settings: EngineSettings, events: any EngineEvents, busyPolling: BusyPolling = BusyPolling(window: .zero)) {
        CurlRuntime.ensureInitialized()
        self.busyPolling = busyPolling
        guard let socketLoop = afc_socket_loop_create() else {
            fatalError("the engine's epoll set could not be made: out of memory or descriptors")
        }
        self.socketLoop = socketLoop
        self.settings = settings
        self.events = events
        self.admission = HostAdmission(limit: settings.maximumConnectionsPerHost)
        guard addMulti() == 0 else { fatalError("curl_multi_init failed: out of memory") }
    }

    deinit {
        // An engine whose thread never started still holds its multi handle.
        if !inbox.withLock({ $0.threadStarted }) { for multi in multis { curl_multi_cleanup(multi) } }
        // After the multi handles' cleanup, which closes connections through the loop's callbacks.
        afc_socket_loop_destroy(socketLoop)
        upgradeReadStorage?.deallocate()
    }

    // MARK: Commands (any thread)

    /// Hands `task` to the engine. Returns false when the engine was invalidated.
    @discardableResult
    func start(_ task: SessionTask) -> Bool { send(.start(task)) }
    func pause(_ task: SessionTask) { send(.pause(task)) }
    func unpause(_ task: SessionTask) { send(.unpause(task)) }
    func cancel(_ task: SessionTask) { send(.cancel(task)) }

    /// Stops accepting tasks; the engine stops once its transfers end (cancelled first when asked).
    func invalidate(cancelingTasks: Bool) {
        send(.invalidate(cancelingTasks: cancelingTasks))
    }

    var isInvalidated: Bool { inbox.withLock { $0.invalidated } }

    /// Sent by a local load's events (``LocalLoadEvents``), from any thread.
    func sendLocalLoadEvent(_ event: LocalLoadEvent, from load: ObjectIdentifier) {
        send(.localLoadEvent(load, event))
    }

    func sendConnectivityChanged() { send(.connectivityChanged) }

    /// A waking body reader of `task`'s transfer has bytes again (from any thread).
    func sendBodyReady(_ task: SessionTask) { send(.bodyReady(task)) }

    /// Reports `finished` from the engine thread with the next batch (a task whose interceptor declined
    /// to retry it). False when the engine has stopped.
    func deliverFinished(_ finished: FinishedTransfer) -> Bool { send(.finished(finished)) }

    /// Hands `job` to the engine thread to run. False when the engine has stopped.
    func sendJob(_ job: UnownedJob) -> Bool { send(.run(job)) }

    /// Sends an upgraded connection's command. False when the engine has stopped (or, to open one, was
    /// invalidated).
    func sendUpgradeCommand(_ kind: UpgradeCommand, _ connection: UpgradedConnection) -> Bool {
        send(.upgrade(kind, connection))
    }

    @discardableResult
    private func send(_ command: Command) -> Bool {
        // The engine thread sending to itself (a task on the engine's executor starting a call) needs
        // no wake-up: the loop looks at the inbox again before it waits.
        let fromEngine = confinement.isOnOwner
        if fromEngine { sentToSelf = true }
        let (accepted, wake): (Bool, Wake) = inbox.withLock { inbox in
            if inbox.stopped { return (false, .none) }
            // After invalidation no task starts, but the ones still running (or waiting for a connection)
            // can be cancelled, suspended and resumed until they end.
            if case .start = command, inbox.invalidated { return (false, .none) }
            if case .upgrade(.open, _) = command, inbox.invalidated { return (false, .none) }
            if case .invalidate = command, inbox.invalidationSent { return (false, .none) }
            if case .invalidate = command { inbox.invalidationSent = true }
            if case .invalidate = command { inbox.invalidated = true }
            // Only the command that makes the inbox non-empty wakes the engine: the engine drains the
            // whole inbox after every wake-up, so a burst of commands costs one wake-up, not one each.
            let wasEmpty = inbox.commands.isEmpty
            inbox.commands.append(command)
            if inbox.threadStarted {
                guard wasEmpty && !fromEngine else { return (true, .none) }
                // Counted under the lock, so that shutDown(), which marks the inbox stopped under it,
                // either keeps this sender out or waits for its wake-up to return.
                wakesInFlight.add(1, ordering: .relaxed)
                return (true, inbox.upgradeWatchWake >= 0 ? .wakeUpgradeWatch(inbox.upgradeWatchWake) : .wakeEngine)
            }
            inbox.threadStarted = true
            return (true, .startThread)
        }
        guard accepted else { return false }
        switch wake {
        case .wakeEngine:
            afc_socket_loop_wake(socketLoop)
            wakesInFlight.subtract(1, ordering: .releasing)
        case .wakeUpgradeWatch(let descriptor):
            var one: UInt64 = 1
            _ = write(descriptor, &one, 8)
            wakesInFlight.subtract(1, ordering: .releasing)
        case .startThread:
            let thread = Thread { [self] in run() }
            thread.name = "AFCore.engine"  // Linux thread names hold 15 bytes
            thread.start()
        case .none:
            break
        }
        return true
    }

    // MARK: The loop (engine thread)

    private func run() {
        confinement.claim()
        // Named from the thread itself: corelibs Foundation names the kernel's thread only if the Thread
        // object already knows its pthread, which the starting thread records after the new one may
        // have begun; the thread otherwise keeps its creator's name (a dispatch worker's) in top and perf.
        afc_name_current_thread("AFCore.engine")
        while true {
            clock.tick()
            inbox.withLock {
                swap(&$0.commands, &takenCommands)
                $0.upgradeWatchWake = -1
            }
            for command in takenCommands { handle(command) }
            takenCommands.removeAll(keepingCapacity: true)
            reportFinishedTransfers()
            streamHeads.release()
            runPendingJobs()
            if invalidating && transfersByTask.isEmpty && !admission.hasWaiting && localLoads.isEmpty
                && connectivityWaits.isEmpty && pendingJobs.isEmpty && upgrades.isEmpty { break }

            // libcurl's timer: new and unpaused transfers start, timeouts fire (its sockets were handed
            // to it by the last wait). Idle timers are the engine's own (checkIdleTransfers).
            clock.tick()
            afc_socket_loop_run_due_timers(socketLoop)
            collectCompletions()
            if connectingUpgrades > 0 { driveUpgradeConnections() }
            checkIdleTransfers()
            reportFinishedTransfers()
            streamHeads.release()
            runPendingJobs()
            fireThrottleTimers()
            expireConnectivityWaits()
            reportGauges()
            if admission.hasWaiting { admitToHostsThatAnnouncedTheirProtocol() }
            if invalidating && transfersByTask.isEmpty && localLoads.isEmpty && connectivityWaits.isEmpty
                && upgrades.isEmpty { continue }

            let timeout = Int(afc_socket_loop_milliseconds_to_deadline(socketLoop))
            var wait = timeout < 0 ? 1000 : min(timeout, 1000)
            if let idleCheck = millisecondsToIdleCheck { wait = min(wait, idleCheck) }
            if !pendingJobs.isEmpty || sentToSelf { wait = 0 }
            // Connecting upgrades' sockets are in their own multi handle, which this poll does not watch:
            // look again soon (connecting lasts milliseconds).
            if connectingUpgrades > 0 { wait = min(wait, 5) }
            sentToSelf = false
            var next = nextConnectivityDeadline
            for timer in throttleTimers where next.map({ timer.deadline < $0 }) ?? true { next = timer.deadline }
            if let next {
                let remaining = ContinuousClock.now.duration(to: next)
                let milliseconds = Int(remaining.components.seconds * 1000)
                    + Int(remaining.components.attoseconds / 1_000_000_000_000_000)
                wait = min(wait, max(0, milliseconds))
            }
            let window = busyPolling.window
            // (Busy polling does not apply: the engine never spins while it watches upgraded sockets.)
            if wait > 0 && sleepOnUpgradeSocketsAlone(Int32(wait)) { continue }
            // Upgraded connections' sockets are watched in the same wait (none: no extra cost).
            watchUpgradeSocketsInLoop()
            var found: Int32 = 0
            if window == 0 || wait == 0 {
                found = afc_socket_loop_wait(socketLoop, Int32(wait))
            } else {
                let idleSince = DispatchTime.now().uptimeNanoseconds
                if upgradesBySocket.isEmpty, let spun = busyPoll() {
                    found = spun
                } else {
                    found = afc_socket_loop_wait(socketLoop, Int32(wait))
                }
                idleGaps.record(DispatchTime.now().uptimeNanoseconds &- idleSince, window: window)
            }
            // libcurl's callbacks stamp activity with the loop's "now": read it after the sleep.
            clock.tick()
            afc_socket_loop_dispatch(socketLoop)
            serviceReadyUpgrades(found: found)
        }
        shutDown()
    }

    /// Whether the engine sleeps (or is about to) in epoll on its upgraded sockets alone (any thread).
    var sleepsOnUpgradeSocketsAlone: Bool { inbox.withLock { $0.upgradeWatchWake >= 0 } }

    /// Marks the engine asleep on its upgraded sockets' epoll (senders then wake it through `wake`),
    /// unless a command already waits: false then. The loop's next turn clears the mark.
    func markSleepingOnUpgradeWatch(wake: Int32) -> Bool {
        inbox.withLock { inbox in
            guard inbox.commands.isEmpty else { return false }
            inbox.upgradeWatchWake = wake
            return true
        }
    }

    private func shutDown() {
        stopObserving()
        loopEnded = true
        // Jobs sent since the last turn, and any still waiting, run on the global executor from now on.
        let (leftover, unopened) = inbox.withLock { inbox -> ([UnownedJob], [UpgradedConnection]) in
            inbox.stopped = true
            return (inbox.commands.compactMap { if case .run(let job) = $0 { job } else { nil } },
                    inbox.commands.compactMap { if case .upgrade(.open, let connection) = $0 { connection } else { nil } })
        }
        // An upgrade asked for after the last turn is told it will not open.
        for connection in unopened { failUpgrade(connection, CurlErrorMapping.error(.cancelled, url: connection.request.url), response: nil) }
        // A sender that found the inbox open may still be waking the loop: the engine outlives it.
        while wakesInFlight.load(ordering: .acquiring) > 0 { sched_yield() }
        for job in pendingJobs + leftover { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        pendingJobs.removeAll()
        for idle in idleHandles { curl_easy_cleanup(idle.handle) }
        idleHandles.removeAll()
        if let upgradeMultiStorage { curl_multi_cleanup(upgradeMultiStorage) }
        upgradeWatch.close()
        for multi in multis { curl_multi_cleanup(multi) }
        multis.removeAll()
        // The connections closed with the multi handle: the gauges say so (0 open, 0 waiting).
        reportGauges()
        events?.engineDidInvalidate()
    }
}
