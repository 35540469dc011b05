import CNetlinkShim

/// One netlink message copied out of a datagram: the header fields and the payload bytes after it.
struct NetlinkMessage: Equatable, Sendable {
    let type: UInt16
    let flags: UInt16
    let sequence: UInt32
    /// The bytes after the 16-byte netlink header (the family header, then attributes).
    let payload: [UInt8]

    /// Splits a datagram into messages. Throws ``NetlinkError/malformed`` when a message's length does
    /// not fit (a kernel never sends that; the check keeps bad input from reading out of bounds).
    static func parse(_ datagram: UnsafeRawBufferPointer) throws(NetlinkError) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        var offset = 0
        let headerSize = MemoryLayout<nlmsghdr>.size
        while offset < datagram.count {
            // Read through unaligned loads at offsets: the bytes may come from anywhere (tests, fuzzing).
            guard datagram.count - offset >= headerSize else { throw .malformed }
            let fields = datagram.loadUnaligned(fromByteOffset: offset, as: nlmsghdr.self)
            let length = Int(fields.nlmsg_len)
            guard length >= headerSize, length <= datagram.count - offset else { throw .malformed }
            let payloadStart = offset + afr_nlmsg_hdrlen()
            messages.append(NetlinkMessage(type: fields.nlmsg_type, flags: fields.nlmsg_flags,
                                           sequence: fields.nlmsg_seq,
                                           payload: Array(datagram[payloadStart..<(offset + length)])))
            offset += afr_nlmsg_align(length)
        }
        return messages
    }

    /// The errno of an NLMSG_ERROR message (0 is an acknowledgement); nil for other types.
    func errorCode() throws(NetlinkError) -> Int32? {
        guard type == UInt16(NLMSG_ERROR) else { return nil }
        guard payload.count >= MemoryLayout<Int32>.size else { throw .malformed }
        let code = payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
        return -code
    }

    /// Reads the fixed family header (`rtmsg`, `ifaddrmsg`, `ifinfomsg`) at the start of the payload.
    func familyHeader<Header>(_: Header.Type) throws(NetlinkError) -> Header {
        guard payload.count >= MemoryLayout<Header>.size else { throw .malformed }
        return payload.withUnsafeBytes { $0.loadUnaligned(as: Header.self) }
    }

    /// The attributes after a family header of `headerSize` bytes, as (type, value bytes).
    func attributes(afterHeaderOfSize headerSize: Int) throws(NetlinkError) -> [(type: UInt16, value: [UInt8])] {
        let start = afr_nlmsg_align(headerSize)
        guard start <= payload.count else { throw .malformed }
        return try NetlinkMessage.attributes(in: Array(payload[start...]))
    }

    /// Walks a run of rtattr records. A trailing fragment shorter than its declared length is malformed.
    static func attributes(in bytes: [UInt8]) throws(NetlinkError) -> [(type: UInt16, value: [UInt8])] {
        var result: [(type: UInt16, value: [UInt8])] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= MemoryLayout<rtattr>.size else { throw .malformed }
            let header = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: rtattr.self) }
            let length = Int(header.rta_len)
            guard length >= MemoryLayout<rtattr>.size, length <= bytes.count - offset else { throw .malformed }
            let valueStart = offset + afr_rta_length(0)
            result.append((type: header.rta_type, value: Array(bytes[valueStart..<(offset + length)])))
            offset += afr_rta_align(length)
        }
        return result
    }
}
