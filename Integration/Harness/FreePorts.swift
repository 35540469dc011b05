// Picking free loopback TCP ports.
import Foundation

/// Free TCP ports on 127.0.0.1, found by letting the kernel choose.
enum FreePorts {
    /// Returns `count` distinct ports that were free a moment ago.
    ///
    /// All sockets are bound (to 127.0.0.1 port 0) before any is closed, so the ports differ from each
    /// other. A port can still be taken between this call and the server's bind; servers are retried
    /// with new ports when their log says the address is in use.
    static func reserve(_ count: Int) throws(HarnessError) -> [Int] {
        var lastError = ""
        for _ in 0..<5 {
            var sockets: [Int32] = []
            defer { sockets.forEach { _ = close($0) } }
            var ports: [Int] = []
            for _ in 0..<count {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                guard fd >= 0 else { lastError = "socket: \(String(cString: strerror(errno)))"; break }
                sockets.append(fd)
                guard let port = bindToEphemeralPort(fd) else {
                    lastError = "bind/getsockname: \(String(cString: strerror(errno)))"
                    break
                }
                ports.append(port)
            }
            if ports.count == count { return ports }
        }
        throw .setupFailed(step: "reserving \(count) free loopback ports", reason: lastError)
    }

    /// Binds `fd` to 127.0.0.1 port 0 and returns the port the kernel chose.
    private static func bindToEphemeralPort(_ fd: Int32) -> Int? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
