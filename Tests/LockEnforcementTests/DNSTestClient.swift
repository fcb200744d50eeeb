import Foundation

@testable import LockEnforcement

#if canImport(Glibc)
import Glibc
#endif

/// A DNS client over plain sockets for testing the forwarder: raw queries in, raw answers out.
final class DNSTestClient {
    let port: UInt16
    let fd: Int32

    init(port: UInt16) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NFTablesError(message: "no socket") }
        var size: Int32 = 8 << 20
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = Self.loopback(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw NFTablesError(message: "connect failed") }
    }

    deinit { close(fd) }

    static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    func send(_ packet: [UInt8]) {
        _ = packet.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
    }

    /// The next datagram, or nil after `timeout` seconds.
    func receive(timeout: Double = 3) -> [UInt8]? {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? Array(buffer[0..<count]) : nil
    }

    /// Sends `packet` and waits for the answer with its ID.
    func ask(_ packet: [UInt8], timeout: Double = 3) -> [UInt8]? {
        send(packet)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let answer = receive(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if answer.count >= 2, answer[0] == packet[0], answer[1] == packet[1] { return answer }
        }
        return nil
    }

    /// One query over a fresh TCP connection.
    static func askOverTCP(port: UInt16, _ packet: [UInt8], timeout: Double = 3) -> [UInt8]? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let framed = [UInt8(packet.count >> 8), UInt8(packet.count & 0xff)] + packet
        guard framed.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == framed.count else { return nil }
        func read(_ count: Int) -> [UInt8]? {
            var result: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: count)
            while result.count < count {
                let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, count - result.count) }
                guard got > 0 else { return nil }
                result += chunk[0..<got]
            }
            return result
        }
        guard let header = read(2) else { return nil }
        return read(Int(header[0]) << 8 | Int(header[1]))
    }

    /// A query with the name exactly as given (case kept), any type, optionally with an OPT
    /// record (payload size 1232, DO bit as given).
    static func query(
        id: UInt16, name: String, type: UInt16, edns: Bool = false, dnssecOK: Bool = false,
        flags: UInt16 = 0x0100
    ) -> [UInt8] {
        var bytes: [UInt8] = [
            UInt8(id >> 8), UInt8(id & 0xff), UInt8(flags >> 8), UInt8(flags & 0xff),
            0, 1, 0, 0, 0, 0, 0, edns ? 1 : 0,
        ]
        var text = name
        if text.hasSuffix(".") { text.removeLast() }
        if !text.isEmpty {
            for label in text.split(separator: ".", omittingEmptySubsequences: false) {
                bytes.append(UInt8(label.utf8.count))
                bytes += Array(label.utf8)
            }
        }
        bytes.append(0)
        bytes += [UInt8(type >> 8), UInt8(type & 0xff), 0, 1]
        if edns { bytes += [0, 0, 41, 0x04, 0xd0, 0, 0, dnssecOK ? 0x80 : 0, 0, 0, 0] }
        return bytes
    }

    /// The bytes of an answer with the ID replaced (for comparing with what upstream sent).
    static func withID(_ packet: [UInt8], _ id: UInt16) -> [UInt8] {
        var copy = packet
        copy[0] = UInt8(id >> 8)
        copy[1] = UInt8(id & 0xff)
        return copy
    }
}
