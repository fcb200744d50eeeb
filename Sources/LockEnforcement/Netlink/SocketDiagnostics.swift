import CNFTables
import Glibc
import LockCore
import LockPlatform

/// One TCP or UDP socket as the kernel describes it through NETLINK_SOCK_DIAG (inet_diag).
struct DiagnosedSocket: Sendable, Equatable {
    /// `IPPROTO_TCP` or `IPPROTO_UDP`.
    var proto: Int32
    var local: SocketAddress
    var remote: SocketAddress
    /// The owner of the socket's inode (whoever created it).
    var uid: UInt32
    /// The socket's inode, as `/proc/PID/fd/N` links name it (`socket:[INODE]`).
    var inode: UInt32
    /// `SO_MARK`; the kernel reports it only to CAP_NET_ADMIN, nil otherwise.
    var mark: UInt32?
}

/// Asks the kernel about sockets (sock_diag(7)): the one socket with given addresses, or every
/// socket of a protocol and family with its mark. One blocking request at a time; the kernel
/// answers within the `sendto` (microseconds for a lookup, about a millisecond per thousand
/// sockets for a dump). Not thread-safe: each user keeps its own.
final class SocketDiagnostics {
    private static let netlinkSockDiag: Int32 = 4  // NETLINK_SOCK_DIAG
    private static let byFamily: UInt16 = 20  // SOCK_DIAG_BY_FAMILY
    private static let attributeMark: UInt16 = 15  // INET_DIAG_MARK
    private static let messageHeader = 16
    private static let diagMessage = 72  // struct inet_diag_msg

    private let fd: Int32
    private var sequence: UInt32 = 1
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init() throws(NetfilterSocket.Failure) {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue | SOCK_CLOEXEC.rawValue), Self.netlinkSockDiag)
        guard fd >= 0 else { throw NetfilterSocket.Failure(step: "sock_diag socket", code: errno) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit { close(fd) }

    /// The socket that holds the flow from `local` to `remote` (for UDP also an unconnected
    /// socket bound to `local`, as the kernel would deliver `remote`'s answer to it).
    func find(proto: Int32, local: SocketAddress, remote: SocketAddress) -> DiagnosedSocket? {
        guard local.family == remote.family else { return nil }
        // UDP's lookup takes the source fields as the packet's source (the remote end), TCP's as
        // the socket's own end (net/ipv4/udp_diag.c, "swapped for historical reasons").
        let (source, destination) = proto == IPPROTO_UDP ? (remote, local) : (local, remote)
        return (try? request(proto: proto, family: local.family, source: source, destination: destination, dump: false))?.first
    }

    /// Every socket of `proto` and `family`, with marks; throws when the kernel refuses.
    func all(proto: Int32, family: IPNetwork.Family) throws(NetfilterSocket.Failure) -> [DiagnosedSocket] {
        let any = SocketAddress(address: try! IPNetwork(family: family, address: 0), port: 0)
        return try request(proto: proto, family: family, source: any, destination: any, dump: true)
    }

    private func request(proto: Int32, family: IPNetwork.Family, source: SocketAddress, destination: SocketAddress, dump: Bool)
        throws(NetfilterSocket.Failure) -> [DiagnosedSocket]
    {
        sequence &+= 1
        let sent = sequence
        var body: [UInt8] = [UInt8(family == .ipv4 ? AF_INET : AF_INET6), UInt8(proto), 0, 0]
        body += NetfilterSocket.native(UInt32.max)  // every state
        body += NetfilterSocket.bigEndian(source.port) + NetfilterSocket.bigEndian(destination.port)
        body += Self.addressBytes(source) + Self.addressBytes(destination)
        body += NetfilterSocket.native(UInt32(0)) + NetfilterSocket.native(UInt32.max) + NetfilterSocket.native(UInt32.max)
        var message = NetfilterSocket.native(UInt32(Self.messageHeader + body.count)) + NetfilterSocket.native(Self.byFamily)
        // NLM_F_DUMP is NLM_F_ROOT | NLM_F_MATCH, a macro Swift does not import.
        message += NetfilterSocket.native(UInt16(NLM_F_REQUEST | (dump ? 0x300 : 0)))
        message += NetfilterSocket.native(sent) + NetfilterSocket.native(UInt32(0)) + body
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let written = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard written == message.count else { throw NetfilterSocket.Failure(step: "sock_diag send", code: errno) }
        var found: [DiagnosedSocket] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw NetfilterSocket.Failure(step: "sock_diag answer", code: count == 0 ? EIO : errno) }
            for reply in NetlinkMessages(bytes: buffer[0..<count]) where reply.sequence == sent {
                if reply.type == UInt16(NLMSG_DONE) { return found }
                if reply.type == UInt16(NLMSG_ERROR) {
                    let code = reply.payload.count >= 4 ? reply.payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } : -EIO
                    if code == -ENOENT { return [] }
                    throw NetfilterSocket.Failure(step: "sock_diag", code: -code)
                }
                if let socket = Self.parse(reply.payload, proto: proto) { found.append(socket) }
                if !dump { return found }
            }
        }
    }

    private static func parse(_ payload: ArraySlice<UInt8>, proto: Int32) -> DiagnosedSocket? {
        guard payload.count >= diagMessage else { return nil }
        let base = payload.startIndex
        let family: IPNetwork.Family = Int32(payload[base]) == AF_INET6 ? .ipv6 : .ipv4
        func u32(_ offset: Int) -> UInt32 { payload.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) } }
        func port(_ offset: Int) -> UInt16 { UInt16(payload[base + offset]) << 8 | UInt16(payload[base + offset + 1]) }
        func address(_ offset: Int) -> IPNetwork {
            var value: UInt128 = 0
            for index in 0..<(family == .ipv4 ? 4 : 16) { value = value << 8 | UInt128(payload[base + offset + index]) }
            return try! IPNetwork(family: family, address: value)
        }
        var mark: UInt32?
        var offset = diagMessage
        while offset + 4 <= payload.count {
            let length = Int(NetlinkMessages.native16(payload, base + offset))
            let type = NetlinkMessages.native16(payload, base + offset + 2)
            guard length >= 4, offset + length <= payload.count else { break }
            if type == attributeMark, length >= 8 { mark = u32(offset + 4) }
            offset += (length + 3) & ~3
        }
        return DiagnosedSocket(
            proto: proto, local: SocketAddress(address: address(8), port: port(4)),
            remote: SocketAddress(address: address(24), port: port(6)),
            uid: u32(64), inode: u32(68), mark: mark)
    }

    private static func addressBytes(_ address: SocketAddress) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        let width = address.family == .ipv4 ? 4 : 16
        for index in 0..<width { bytes[index] = UInt8(truncatingIfNeeded: address.address >> UInt128(8 * (width - 1 - index))) }
        return bytes
    }
}

/// Which processes hold a socket, from their `/proc/PID/fd` links (what `ss -p` reads).
enum SocketHolders {
    /// True when process `pid` has the socket with `inode` open.
    static func holds(_ pid: Int32, inode: UInt32, proc: String = "/proc") -> Bool {
        !inodes(of: pid, among: [inode], proc: proc).isEmpty
    }

    /// Every process holding one of `inodes`, per inode; reads every process's descriptors.
    static func holders(of inodes: Set<UInt32>, proc: String = "/proc") -> [UInt32: [Int32]] {
        guard !inodes.isEmpty, let directory = opendir(proc) else { return [:] }
        defer { closedir(directory) }
        var result: [UInt32: [Int32]] = [:]
        while let entry = readdir(directory) {
            let name = DirectoryEntry.name(entry)
            guard let pid = Int32(name) else { continue }
            for inode in Self.inodes(of: pid, among: inodes, proc: proc) { result[inode, default: []].append(pid) }
        }
        return result
    }

    /// The command name of `pid` (`/proc/PID/comm`), or "?".
    static func command(of pid: Int32, proc: String = "/proc") -> String {
        guard let bytes = ProcFile.bytes(pid, "comm", proc: proc, limit: 64) else { return "?" }
        return String(decoding: bytes.prefix { $0 != 10 }, as: UTF8.self)
    }

    /// Which of `wanted` process `pid` holds.
    static func inodes(of pid: Int32, among wanted: Set<UInt32>, proc: String) -> Set<UInt32> {
        let path = "\(proc)/\(pid)/fd"
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var found: Set<UInt32> = []
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(directory) {
            let name = DirectoryEntry.name(entry)
            guard name.first?.isNumber == true else { continue }
            let length = readlink("\(path)/\(name)", &target, target.count - 1)
            guard length > 9 else { continue }
            let link = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard link.hasPrefix("socket:["), let inode = UInt32(link.dropFirst(8).dropLast()), wanted.contains(inode) else { continue }
            found.insert(inode)
        }
        return found
    }
}
