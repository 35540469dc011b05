/// Why talking to the kernel over NETLINK_ROUTE failed. Internal: the manager turns every failure into
/// `notReachable` for the evaluation at hand, never a crash.
enum NetlinkError: Error, Equatable, Sendable {
    /// socket(2), bind(2) or setsockopt(2) failed with this errno.
    case socketFailed(errno: Int32)
    /// send(2) failed with this errno.
    case sendFailed(errno: Int32)
    /// recv(2) failed with this errno (EAGAIN after the receive timeout).
    case receiveFailed(errno: Int32)
    /// The kernel answered with NLMSG_ERROR carrying this (positive) errno, e.g. ENETUNREACH.
    case kernel(errno: Int32)
    /// A datagram was larger than the receive buffer.
    case truncated
    /// A message or attribute did not fit its declared length, or a fixed header was short.
    case malformed
    /// A request could not be built (unsupported type or family).
    case invalidRequest
}
