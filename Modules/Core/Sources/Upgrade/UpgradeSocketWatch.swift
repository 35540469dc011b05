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
    /// Where `epoll_wait` writes (kept between turns).
    private var readyEvents: [epoll_event] = []
    /// The most events one turn takes; the rest stay ready for the next turn (level-triggered).
    static let maximumEventsPerTurn = 256

    static let readable = UInt32(EPOLLIN.rawValue)
    static let writable = UInt32(EPOLLOUT.rawValue)

    /// Registers `socket` for `wanted` (``readable``, ``writable``; 0: none), given what it is registered
    /// for now (`registered`, nil: not at all), which it updates. False when epoll refused (out of memory
    /// or descriptors): the connection cannot be watched and must be closed.
    mutating func watch(_ socket: Int32, wanted: UInt32, registered: inout UInt32?) -> Bool {
        guard wanted != registered ?? 0 else { return true }
        if descriptor < 0 {
            descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard descriptor >= 0 else { return false }
        }
        if wanted == 0 {
            unwatch(socket, registered: &registered)
            return true
        }
        var event = epoll_event()
        event.events = wanted
        event.data.fd = socket
        let operation = registered == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        guard epoll_ctl(descriptor, operation, socket, &event) == 0 else { return false }
        registered = wanted
        return true
    }

    /// Stops watching `socket` (before it is closed).
    func unwatch(_ socket: Int32, registered: inout UInt32?) {
        guard registered != nil, descriptor >= 0 else { return }
        var unused = epoll_event()
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, socket, &unused)
        registered = nil
    }

    /// A socket epoll found ready: readable (or hung up: reading tells which), writable.
    struct Ready {
        var socket: Int32
        var readable: Bool
        var writable: Bool
    }

    /// Replaces `ready` with the sockets ready now, without waiting (at most ``maximumEventsPerTurn``).
    mutating func collectReady(into ready: inout [Ready]) {
        ready.removeAll(keepingCapacity: true)
        guard descriptor >= 0 else { return }
        if readyEvents.isEmpty { readyEvents = Array(repeating: epoll_event(), count: Self.maximumEventsPerTurn) }
        let count = readyEvents.withUnsafeMutableBufferPointer {
            epoll_wait(descriptor, $0.baseAddress, Int32($0.count), 0)
        }
        guard count > 0 else { return }
        let hangUp = UInt32(EPOLLHUP.rawValue) | UInt32(EPOLLERR.rawValue) | UInt32(EPOLLRDHUP.rawValue)
        for index in 0..<Int(count) {
            let event = readyEvents[index]
            ready.append(Ready(socket: event.data.fd, readable: event.events & (Self.readable | hangUp) != 0,
                               writable: event.events & Self.writable != 0))
        }
    }

    /// Closes the epoll descriptor (the engine stopping).
    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
