import LockCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 or IPv6 socket address in the kernel's layout, for `sendto`, `recvfrom` and
/// `connect`, comparable so that answers can be checked to come from the server asked.
struct SocketAddress: Sendable, Equatable {
    let family: IPNetwork.Family
    let address: UInt128
    let port: UInt16
    let scopeID: UInt32

    init(address: IPNetwork, port: UInt16, scopeID: UInt32 = 0) {
        self.family = address.family
        self.address = address.address
        self.port = port
        self.scopeID = scopeID
    }

    /// Reads a kernel-filled address; nil for families other than IPv4 and IPv6.
    init?(storage: sockaddr_storage) {
        var copy = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &copy) { $0.load(as: sockaddr_in.self) }
            var value: UInt128 = 0
            withUnsafeBytes(of: sin.sin_addr) { bytes in
                for byte in bytes { value = value << 8 | UInt128(byte) }
            }
            family = .ipv4
            address = value
            port = UInt16(bigEndian: sin.sin_port)
            scopeID = 0
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &copy) { $0.load(as: sockaddr_in6.self) }
            var value: UInt128 = 0
            withUnsafeBytes(of: sin6.sin6_addr) { bytes in
                for byte in bytes { value = value << 8 | UInt128(byte) }
            }
            family = .ipv6
            address = value
            port = UInt16(bigEndian: sin6.sin6_port)
            scopeID = sin6.sin6_scope_id
        default:
            return nil
        }
    }

    /// The protocol family for `socket(2)`.
    var domain: Int32 { family == .ipv4 ? AF_INET : AF_INET6 }

    /// Calls `body` with a pointer to the kernel representation and its length.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr.s_addr = UInt32(truncatingIfNeeded: address).bigEndian
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { bytes in
                for index in 0..<16 {
                    bytes[index] = UInt8(truncatingIfNeeded: address >> UInt128(120 - 8 * index))
                }
            }
            return withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Same host and port; the scope is ignored because the kernel may report it differently
    /// from how it was configured.
    func matches(_ other: SocketAddress) -> Bool {
        family == other.family && address == other.address && port == other.port
    }
}
