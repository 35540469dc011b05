import CCurlShim
#if canImport(Glibc)
import Glibc
#endif

/// The sockets of upgraded connections, watched with epoll (level-triggered): the loop's poll watches
/// the one epoll descriptor for all of them, and a turn visits only the connections that are ready. So
/// an idle connection costs a file descriptor and nothing per turn (poll(2) over every socket, and a
/// look at every connection, cost each turn in proportion to all of them, busy or not).
///
/// A socket is registered only while it wants an event (readable while reading is on, writable while
/// bytes wait): epoll reports a hang-up even for a socket that asks for nothing, which would wake the
/// loop at every turn.
///
/// Threading: the engine thread only (a value inside the engine).
struct UpgradeSocketWatch {
    /// The epoll descriptor; -1 until the first connection is watched.
    private(set) var descriptor: Int32 = -1
    /// An eventfd in the epoll set that other threads write to wake the engine while it sleeps in epoll
    /// alone (``SessionEngine/sleepOnUpgradeSocketsAlone(_:)``); -1 until first needed.
    private(set) var wakeDescriptor: Int32 = -1
    /// Where the ready sockets and their events are written (kept between turns).
    private var readySockets: [Int32] = []
    private var readyEvents: [UInt32] = []
    /// The most sockets one turn takes; the rest stay ready for the next turn (level-triggered).
    static let maximumReadyPerTurn = 256

    /// epoll's event bits (sys/epoll.h).
    static let readable: UInt32 = 0x001
    static let writable: UInt32 = 0x004
    private static let failed: UInt32 = 0x008
    private static let hungUp: UInt32 = 0x010
    private enum Operation: Int32 { case add = 1, remove = 2, modify = 3 }

    /// Registers `socket` for `wanted` (``readable``, ``writable``; 0: none), given what it is registered
    /// for now (`registered`, nil: not at all), which it updates. False when epoll refused (out of memory
    /// or descriptors): the connection cannot be watched and must be closed.
    mutating func watch(_ socket: Int32, wanted: UInt32, registered: inout UInt32?) -> Bool {
        guard wanted != registered ?? 0 else { return true }
        if descriptor < 0 {
            descriptor = afc_epoll_create()
            guard descriptor >= 0 else { return false }
        }
        if wanted == 0 {
            unwatch(socket, registered: &registered)
            return true
        }
        let operation: Operation = registered == nil ? .add : .modify
        guard afc_epoll_control(descriptor, operation.rawValue, socket, wanted) == 0 else { return false }
        registered = wanted
        return true
    }

    /// Stops watching `socket` (before it is closed).
    func unwatch(_ socket: Int32, registered: inout UInt32?) {
        guard registered != nil, descriptor >= 0 else { return }
        _ = afc_epoll_control(descriptor, Operation.remove.rawValue, socket, 0)
        registered = nil
    }

    /// A socket epoll found ready: readable (or hung up or failed: reading tells which), writable.
    struct Ready {
        var socket: Int32
        var readable: Bool
        var writable: Bool
    }

    /// Makes ``wakeDescriptor`` and adds it to the epoll set, once; false when either cannot be made.
    mutating func prepareWakeDescriptor() -> Bool {
        if wakeDescriptor >= 0 { return true }
        guard descriptor >= 0 else { return false }
        let made = afc_eventfd_create()
        guard made >= 0 else { return false }
        guard afc_epoll_control(descriptor, Operation.add.rawValue, made, Self.readable) == 0 else {
            Glibc.close(made)
            return false
        }
        wakeDescriptor = made
        return true
    }

    /// Replaces `ready` with the sockets ready now, or within `timeout` milliseconds when none is (at
    /// most ``maximumReadyPerTurn``); a wake-up through ``wakeDescriptor`` is taken and not listed.
    /// Returns whether there was one.
    @discardableResult
    mutating func collectReady(into ready: inout [Ready], timeout: Int32 = 0) -> Bool {
        ready.removeAll(keepingCapacity: true)
        guard descriptor >= 0 else { return false }
        if readySockets.isEmpty {
            readySockets = Array(repeating: 0, count: Self.maximumReadyPerTurn)
            readyEvents = Array(repeating: 0, count: Self.maximumReadyPerTurn)
        }
        let count = readySockets.withUnsafeMutableBufferPointer { sockets in
            readyEvents.withUnsafeMutableBufferPointer { events in
                afc_epoll_ready(descriptor, sockets.baseAddress, events.baseAddress, Int32(sockets.count), timeout)
            }
        }
        guard count > 0 else { return false }
        var woken = false
        for index in 0..<Int(count) {
            if readySockets[index] == wakeDescriptor {
                var counter: UInt64 = 0
                _ = read(wakeDescriptor, &counter, 8)
                woken = true
                continue
            }
            let events = readyEvents[index]
            ready.append(Ready(socket: readySockets[index],
                               readable: events & (Self.readable | Self.hungUp | Self.failed) != 0,
                               writable: events & Self.writable != 0))
        }
        return woken
    }

    /// Closes the epoll descriptor and the wake-up (the engine stopping, once no sender can write to it).
    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        if wakeDescriptor >= 0 { Glibc.close(wakeDescriptor) }
        descriptor = -1
        wakeDescriptor = -1
    }
}
