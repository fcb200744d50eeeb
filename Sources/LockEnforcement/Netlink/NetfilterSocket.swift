import CNFTNL
import CNFTables
import Glibc

/// A NETLINK_NETFILTER socket: the one place that opens one, frames an nfnetlink request, sends
/// it to the kernel and waits for the answer carrying its sequence number. NFLOG, NFQUEUE,
/// conntrack lookups and the nftables monitor each speak their own subsystem through it.
///
/// Unchecked Sendable: a reader opens it, then its one thread both reads and answers on it
/// (NFQUEUE's verdicts), then deinit releases it; requests never overlap.
final class NetfilterSocket: @unchecked Sendable {
    /// Why a step failed: the call and its errno (or the kernel's error code).
    struct Failure: Error, CustomStringConvertible {
        var step: String
        var code: Int32
        var description: String { "\(step): \(String(cString: strerror(code)))" }
    }

    let fd: Int32
    private var sequence = UInt32.random(in: 1...(UInt32.max / 2))
    private var answers: [UInt8]

    /// Opens a socket. `bound` binds it, so that the kernel may send it messages unasked (log
    /// and queue packets, notifications of `groups`); `receiveBuffer` asks for a larger queue
    /// than the default for bursts; `timeout` bounds each wait for an answer.
    init(bound: Bool, timeout: timeval, receiveBuffer: Int32? = nil, groups: [UInt32] = [], answerBytes: Int = 8192) throws(Failure) {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue | SOCK_CLOEXEC.rawValue), NETLINK_NETFILTER)
        guard fd >= 0 else { throw Failure(step: "socket", code: errno) }
        var timeout = timeout
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer, setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if bound {
            var local = sockaddr_nl()
            local.nl_family = sa_family_t(AF_NETLINK)
            let result = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
            }
            guard result == 0 else {
                let code = errno
                close(fd)
                throw Failure(step: "bind", code: code)
            }
        }
        for var group in groups where setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, socklen_t(MemoryLayout<UInt32>.size)) != 0
        {
            let code = errno
            close(fd)
            throw Failure(step: "join group \(group)", code: code)
        }
        self.fd = fd
        self.answers = [UInt8](repeating: 0, count: answerBytes)
    }

    deinit { close(fd) }

    /// Sends one request of `subsystem` and `type` with an nfgenmsg header (`family`, `resource`
    /// in network order) and `attributes`. With `waiting`, waits for the answer: nil for the
    /// kernel's acknowledgement (asked for with `acknowledged`), the first message of the answer
    /// otherwise; the kernel's error is thrown.
    @discardableResult
    func request(
        subsystem: UInt16, type: UInt16, family: UInt8 = UInt8(AF_UNSPEC), resource: UInt16 = 0, attributes: [UInt8],
        acknowledged: Bool = false, waiting: Bool
    ) throws(Failure) -> NetlinkMessages.Message? {
        sequence &+= 1
        let sent = sequence
        var message: [UInt8] = []
        message.reserveCapacity(20 + attributes.count)
        message += Self.native(UInt32(20 + attributes.count))
        message += Self.native(subsystem << 8 | type)
        message += Self.native(UInt16(NLM_F_REQUEST | (acknowledged ? NLM_F_ACK : 0)))
        message += Self.native(sent) + Self.native(UInt32(0))
        message += [family, UInt8(NFNETLINK_V0)] + Self.bigEndian(resource)
        message += attributes
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let written = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard written == message.count else { throw Failure(step: "send", code: errno) }
        guard waiting else { return nil }
        while true {
            let count = answers.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(step: "no answer", code: count == 0 ? EIO : errno) }
            for reply in NetlinkMessages(bytes: answers[0..<count]) where reply.sequence == sent {
                guard reply.type == UInt16(NLMSG_ERROR) else { return reply }
                let code = reply.payload.count >= 4 ? reply.payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } : -EIO
                if code == 0 { return nil }
                throw Failure(step: "refused", code: -code)
            }
        }
    }

    /// What one wait for messages the kernel sends unasked gave.
    enum Received {
        case messages(NetlinkMessages)
        /// Nothing within the wait (or an interrupted call).
        case nothing
        /// The socket's queue overflowed and messages were lost (ENOBUFS).
        case lost
    }

    /// Waits up to `milliseconds` for messages, into `buffer` (the reading thread's own).
    func receive(within milliseconds: Int32, into buffer: inout [UInt8]) -> Received {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return .nothing }
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count < 0 { return errno == ENOBUFS ? .lost : .nothing }
        return count == 0 ? .nothing : .messages(NetlinkMessages(bytes: buffer[0..<count]))
    }

    /// One attribute (header in host order), padded to four bytes.
    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var out = native(UInt16(4 + value.count)) + native(type) + value
        while out.count % 4 != 0 { out.append(0) }
        return out
    }

    static func native<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
}
