import Foundation
import LockCore
import Synchronization

@testable import LockEnforcement

#if canImport(Glibc)
import Glibc
#endif

/// A scripted DNS server on 127.0.0.1 (UDP and TCP on the same ephemeral port) for testing the
/// real resolver without any network beyond loopback.
final class DNSTestServer: Sendable {
    /// How the server treats one question.
    enum Behaviour: Sendable {
        case answer([String])
        case cname(String, [String])
        case nxdomain
        case servfail
        case drop
        /// Truncated (no records) over UDP; the full answer over TCP.
        case truncate([String])
        /// FORMERR to queries carrying EDNS0, an answer to plain ones (a pre-EDNS server).
        case noEDNS([String])
    }

    private struct State {
        var stopped = false
        var udpQueries = 0
        var tcpQueries = 0
        var names: [String] = []
        var queries: [[UInt8]] = []
        var replies: [[UInt8]] = []
    }

    let port: UInt16
    private let udp: Int32
    private let tcp: Int32
    private let handler: @Sendable (String, UInt16) -> Behaviour
    private let state = Mutex(State())

    init(handler: @escaping @Sendable (String, UInt16) -> Behaviour) throws {
        self.handler = handler
        udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        // Room for a burst of a thousand queries (FORCE passes rmem_max as root).
        var size: Int32 = 8 << 20
        if setsockopt(udp, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(udp, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let udpSocket = udp
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                guard bind(udpSocket, pointer, length) == 0 else { return false }
                return getsockname(udpSocket, pointer, &length) == 0
            }
        }
        guard bound else { throw NFTablesError(message: "cannot bind the test DNS server") }
        port = UInt16(bigEndian: address.sin_port)
        var one: Int32 = 1
        setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let tcpSocket = tcp
        let tcpBound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(tcpSocket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard tcpBound == 0, listen(tcp, 16) == 0 else { throw NFTablesError(message: "cannot listen on TCP") }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit {
        close(udp)
        close(tcp)
    }

    func stop() { state.withLock { $0.stopped = true } }

    var udpQueries: Int { state.withLock { $0.udpQueries } }
    var tcpQueries: Int { state.withLock { $0.tcpQueries } }
    var names: [String] { state.withLock { $0.names } }
    /// Every query received, as received.
    var queries: [[UInt8]] { state.withLock { $0.queries } }
    /// Every reply sent, as sent (TCP ones without their length).
    var replies: [[UInt8]] { state.withLock { $0.replies } }

    /// A configuration pointing at this server.
    func configuration(timeout: Duration = .milliseconds(300), attempts: Int = 2) -> ResolverConfiguration {
        ResolverConfiguration(
            servers: [ResolverConfiguration.Server(address: try! IPNetwork(parsing: "127.0.0.1"), port: port)],
            timeout: timeout, attempts: attempts)
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !state.withLock({ $0.stopped }) {
            var fds = [pollfd(fd: udp, events: Int16(POLLIN), revents: 0), pollfd(fd: tcp, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 100) > 0 else { continue }
            if fds[0].revents != 0 {
                var peer = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let count = buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(udp, bytes.baseAddress, bytes.count, 0, $0, &length)
                        }
                    }
                }
                if count > 0, let reply = respond(Array(buffer[0..<count]), overTCP: false) {
                    _ = reply.withUnsafeBytes { bytes in
                        withUnsafePointer(to: &peer) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                sendto(udp, bytes.baseAddress, bytes.count, 0, $0, length)
                            }
                        }
                    }
                }
            }
            if fds[1].revents != 0 {
                let client = accept(tcp, nil, nil)
                guard client >= 0 else { continue }
                var header = [UInt8](repeating: 0, count: 2)
                if read(client, &header, 2) == 2 {
                    let length = Int(header[0]) << 8 | Int(header[1])
                    var body = [UInt8](repeating: 0, count: length)
                    var got = 0
                    while got < length {
                        let n = body.withUnsafeMutableBytes { read(client, $0.baseAddress! + got, length - got) }
                        if n <= 0 { break }
                        got += n
                    }
                    if got == length, let reply = respond(body, overTCP: true) {
                        let framed = [UInt8(reply.count >> 8), UInt8(reply.count & 0xff)] + reply
                        _ = framed.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                    }
                }
                close(client)
            }
        }
    }

    private func respond(_ query: [UInt8], overTCP: Bool) -> [UInt8]? {
        let reply = makeReply(query, overTCP: overTCP)
        if let reply { state.withLock { $0.replies.append(reply) } }
        return reply
    }

    private func makeReply(_ query: [UInt8], overTCP: Bool) -> [UInt8]? {
        state.withLock { $0.queries.append(query) }
        guard let message = DNSMessage(bytes: query) else { return nil }
        let hasEDNS = query[10] != 0 || query[11] != 0
        state.withLock {
            if overTCP { $0.tcpQueries += 1 } else { $0.udpQueries += 1 }
            $0.names.append(message.questionName)
        }
        let name = message.questionName
        let type = message.questionType
        func records(_ owner: String, _ addresses: [String]) -> [(String, UInt16, [UInt8])] {
            addresses.compactMap { try? IPNetwork(parsing: $0) }.compactMap { address in
                let width = address.family == .ipv4 ? 4 : 16
                let wanted: UInt16 = address.family == .ipv4 ? 1 : 28
                guard wanted == type else { return nil }
                let bytes = (0..<width).map { UInt8(truncatingIfNeeded: address.address >> UInt128(8 * (width - 1 - $0))) }
                return (owner, wanted, bytes)
            }
        }
        switch handler(name, type) {
        case .answer(let addresses):
            return Self.response(id: message.id, name: name, type: type, records: records(name, addresses))
        case .cname(let target, let addresses):
            let alias = (name, UInt16(5), DNSMessage.encode(name: target)!)
            return Self.response(id: message.id, name: name, type: type, records: [alias] + records(target, addresses))
        case .nxdomain:
            return Self.response(id: message.id, name: name, type: type, rcode: 3, records: [])
        case .servfail:
            return Self.response(id: message.id, name: name, type: type, rcode: 2, records: [])
        case .drop:
            return nil
        case .truncate(let addresses):
            if overTCP { return Self.response(id: message.id, name: name, type: type, records: records(name, addresses)) }
            return Self.response(id: message.id, name: name, type: type, truncated: true, records: [])
        case .noEDNS(let addresses):
            if hasEDNS { return Self.response(id: message.id, name: name, type: type, rcode: 1, records: []) }
            return Self.response(id: message.id, name: name, type: type, records: records(name, addresses))
        }
    }

    /// Builds a response without name compression.
    static func response(
        id: UInt16, name: String, type: UInt16, rcode: UInt8 = 0, truncated: Bool = false,
        records: [(String, UInt16, [UInt8])]
    ) -> [UInt8] {
        var bytes: [UInt8] = [
            UInt8(id >> 8), UInt8(id & 0xff), truncated ? 0x83 : 0x81, 0x80 | rcode,
            0, 1, UInt8(records.count >> 8), UInt8(records.count & 0xff), 0, 0, 0, 0,
        ]
        bytes += DNSMessage.encode(name: name)!
        bytes += [UInt8(type >> 8), UInt8(type & 0xff), 0, 1]
        for (owner, recordType, data) in records {
            bytes += DNSMessage.encode(name: owner)!
            bytes += [
                UInt8(recordType >> 8), UInt8(recordType & 0xff), 0, 1, 0, 0, 0, 60,
                UInt8(data.count >> 8), UInt8(data.count & 0xff),
            ]
            bytes += data
        }
        return bytes
    }
}
