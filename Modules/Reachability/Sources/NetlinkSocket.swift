import CNetlinkShim
#if canImport(Glibc)
import Glibc
#endif

/// A NETLINK_ROUTE socket: either a request socket (no groups) that asks the kernel about links,
/// addresses and routes, or a subscription socket bound to multicast groups that the event monitor
/// waits on. Closes its descriptor on deinit.
///
/// Not thread-safe: each instance is used by one thread at a time.
final class NetlinkSocket {
    /// Large enough for any rtnetlink datagram (the kernel caps dump datagrams well below this).
    private static let receiveBufferSize = 64 * 1024

    let descriptor: Int32
    private var nextSequence: UInt32 = 1
    private var buffer = [UInt8](repeating: 0, count: NetlinkSocket.receiveBufferSize)

    /// Opens and binds the socket. `groups` subscribes to multicast groups (0 for a request socket);
    /// `nonBlocking` sets O_NONBLOCK; `receiveTimeoutSeconds` bounds a blocking receive so a request
    /// can never hang forever.
    init(groups: UInt32 = 0, nonBlocking: Bool = false, receiveTimeoutSeconds: Int = 2) throws(NetlinkError) {
        var type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let descriptor = socket(AF_NETLINK, type, NETLINK_ROUTE)
        guard descriptor >= 0 else { throw .socketFailed(errno: errno) }
        var local = sockaddr_nl()
        local.nl_family = sa_family_t(AF_NETLINK)
        local.nl_groups = groups
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw .socketFailed(errno: code)
        }
        if !nonBlocking {
            var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Receives one datagram and splits it into messages. Throws ``NetlinkError/receiveFailed(errno:)``
    /// with EAGAIN when a non-blocking socket has nothing (or a blocking one timed out).
    func receive() throws(NetlinkError) -> [NetlinkMessage] {
        let count = buffer.withUnsafeMutableBytes { raw in
            // MSG_TRUNC makes recv report the datagram's real size, so truncation is detected.
            recv(descriptor, raw.baseAddress, raw.count, Int32(MSG_TRUNC))
        }
        guard count >= 0 else { throw .receiveFailed(errno: errno) }
        guard count <= buffer.count else { throw .truncated }
        let parsed = buffer.withUnsafeBytes { raw in
            Result { () throws(NetlinkError) in try NetlinkMessage.parse(UnsafeRawBufferPointer(rebasing: raw[0..<count])) }
        }
        return try parsed.get()
    }

    /// What draining a subscription socket found.
    enum DrainResult {
        /// At least one event (or an overrun: the kernel dropped events, so state must be re-read).
        case changed
        /// Nothing was queued.
        case nothing
        /// The socket failed with something other than EAGAIN/EINTR/ENOBUFS; it is of no further use.
        case failed
    }

    /// Discards every queued datagram: a subscription socket only needs to know that something changed.
    func drain() -> DrainResult {
        var result = DrainResult.nothing
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count >= 0 {
                result = .changed
                continue
            }
            switch errno {
            case EINTR: continue
            case ENOBUFS: result = .changed
            case EAGAIN, EWOULDBLOCK: return result
            default: return .failed
            }
        }
    }

    /// Sends a dump request and collects every message of the answer up to NLMSG_DONE.
    func dump(type: Int32, family: Int32) throws(NetlinkError) -> [NetlinkMessage] {
        let sequence = takeSequence()
        try send(NetlinkRequest.dump(type: type, family: family, sequence: sequence))
        var collected: [NetlinkMessage] = []
        while true {
            for message in try receive() where message.sequence == sequence {
                if message.type == UInt16(NLMSG_DONE) { return collected }
                if let code = try message.errorCode() {
                    if code != 0 { throw .kernel(errno: code) }
                    continue
                }
                collected.append(message)
            }
        }
    }

    /// Asks the kernel which route it would use for `destination` (RTM_GETROUTE without NLM_F_DUMP;
    /// nothing is sent on the network). Returns the RTM_NEWROUTE answer; throws ``NetlinkError/kernel(errno:)``
    /// with ENETUNREACH, EHOSTUNREACH, ... when there is no usable route.
    func routeQuery(to destination: IPAddress) throws(NetlinkError) -> NetlinkMessage {
        let sequence = takeSequence()
        try send(NetlinkRequest.routeQuery(to: destination, sequence: sequence))
        while true {
            for message in try receive() where message.sequence == sequence {
                if let code = try message.errorCode() {
                    if code != 0 { throw .kernel(errno: code) }
                    continue
                }
                if message.type == UInt16(RTM_NEWROUTE) { return message }
            }
        }
    }

    private func takeSequence() -> UInt32 {
        defer { nextSequence &+= 1 }
        return nextSequence
    }

    private func send(_ request: [UInt8]) throws(NetlinkError) {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let sent = request.withUnsafeBytes { raw in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard sent == request.count else { throw .sendFailed(errno: errno) }
    }
}
