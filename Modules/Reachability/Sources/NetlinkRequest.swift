import CNetlinkShim

/// The bytes of the requests the manager sends to the kernel, built by the C shim (which has the
/// rtnetlink macros and struct layouts).
enum NetlinkRequest {
    /// A dump (NLM_F_REQUEST | NLM_F_DUMP) of RTM_GETLINK, RTM_GETADDR or RTM_GETROUTE for `family`.
    /// Throws ``NetlinkError/invalidRequest`` for another message type.
    static func dump(type: Int32, family: Int32, sequence: UInt32) throws(NetlinkError) -> [UInt8] {
        var request = [UInt8](repeating: 0, count: 64)
        let length = request.withUnsafeMutableBytes {
            afr_build_dump_request($0.baseAddress, $0.count, UInt16(truncatingIfNeeded: type),
                                   UInt8(truncatingIfNeeded: family), sequence)
        }
        guard length > 0 else { throw .invalidRequest }
        return Array(request.prefix(length))
    }

    /// An RTM_GETROUTE query for the route the kernel would use to reach `destination`.
    static func routeQuery(to destination: IPAddress, sequence: UInt32) throws(NetlinkError) -> [UInt8] {
        var request = [UInt8](repeating: 0, count: 128)
        let length = request.withUnsafeMutableBytes { raw in
            destination.bytes.withUnsafeBytes { address in
                afr_build_route_query(raw.baseAddress, raw.count, UInt8(truncatingIfNeeded: destination.family),
                                      address.baseAddress, address.count, sequence)
            }
        }
        guard length > 0 else { throw .invalidRequest }
        return Array(request.prefix(length))
    }
}
