import Foundation
import Glibc
import LockCore
import Logging
import Synchronization
import Testing

@testable import LockEnforcement

/// The forwarder's sockets: closed at stop, a taken port an error, IPv6 loopback served too.
extension DNSForwarderTests {
    @Test func stopClosesTheSockets() async throws {
        let server = try Self.upstream()
        // A port below the ephemeral range: a port the kernel hands out to other tests' sockets
        // could be taken between stop and rebinding, and the test would blame the forwarder.
        var settings = Self.settings()
        var forwarder: DNSForwarder?
        var port: UInt16 = 0
        for candidate in (UInt16(20000)..<32000).shuffled().prefix(50) {
            settings.port = candidate
            let attempt = DNSForwarder(settings: settings, upstream: server.configuration(), policy: Self.policy, logger: Self.logger)
            if let bound = try? await attempt.start() {
                forwarder = attempt
                port = bound
                break
            }
        }
        guard let forwarder else {
            Issue.record("no free port below the ephemeral range")
            return
        }
        #expect(try await forwarder.start() == port, "starting twice keeps the first")
        // Seen through /proc, which a loaded machine (the whole suite at once) now and then lists
        // late: looked at for up to a second before the test counts it as unseen.
        var seen = Self.ownSockets(onPort: port)
        for _ in 0..<20 where seen.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            seen = Self.ownSockets(onPort: port)
        }
        #expect(!seen.isEmpty, "the forwarder's sockets are seen")
        await forwarder.stop()
        #expect(forwarder.port == nil)
        let client = try DNSTestClient(port: port)
        #expect(client.ask(DNSTestClient.query(id: 81, name: "blocked.test", type: 1), timeout: 0.3) == nil)
        // No socket of this process is left on the port (binding it again could fail for
        // another reason: a socket of another test running at the same time).
        #expect(Self.ownSockets(onPort: port).isEmpty, "\(Self.ownSockets(onPort: port))")
        server.stop()
    }

    /// The inodes of sockets on local `port` (UDP and TCP, IPv4 and IPv6) that this process holds.
    static func ownSockets(onPort port: UInt16) -> [String] {
        let hexPort = ":" + String(format: "%04X", port)
        var onPort: Set<String> = []
        for table in ["udp", "tcp", "udp6", "tcp6"] {
            let text = (try? String(contentsOfFile: "/proc/net/\(table)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[1].hasSuffix(hexPort) else { continue }
                onPort.insert(String(fields[9]))
            }
        }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                target.hasPrefix("socket:[")
            else { return nil }
            let inode = String(target.dropFirst("socket:[".count).dropLast())
            return onPort.contains(inode) ? inode : nil
        }
    }

    @Test func aTakenPortIsAClearError() async throws {
        let first = DNSForwarder(
            settings: DNSForwarder.Settings(listenAddresses: ["127.0.0.1"], mark: nil),
            upstream: ResolverConfiguration(servers: []), logger: Self.logger)
        let port = try await first.start()
        let second = DNSForwarder(
            settings: DNSForwarder.Settings(listenAddresses: ["127.0.0.1"], port: port, mark: nil),
            upstream: ResolverConfiguration(servers: []), logger: Self.logger)
        await #expect(throws: DNSForwarderError.self) { try await second.start() }
        #expect(second.port == nil)
        await first.stop()
    }

    /// One datagram to [::1]:port and its answer; nil when IPv6 loopback is unavailable.
    static func askOverIPv6(port: UInt16, _ packet: [UInt8]) -> [UInt8]? {
        let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 }
        let sent = packet.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard sent == packet.count else { return nil }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 3000) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer[0..<count]) : nil
    }

    static let hasIPv6Loopback: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }()

    @Test(.enabled(if: hasIPv6Loopback, "no IPv6 loopback address here"))
    func listensOnIPv6LoopbackToo() async throws {
        let server = try Self.upstream()
        var settings = Self.settings()
        settings.listenAddresses = ["127.0.0.1", "::1"]
        try await withForwarder([server], settings: settings) { forwarder, _ in
            let port = try #require(forwarder.port)
            let blocked = try #require(Self.askOverIPv6(port: port, DNSTestClient.query(id: 91, name: "blocked.test", type: 28)))
            #expect(DNSMessage(bytes: blocked)?.answers.map(\.data) == [[UInt8](repeating: 0, count: 16)])
            let forwarded = try #require(Self.askOverIPv6(port: port, DNSTestClient.query(id: 92, name: "allowed.test", type: 28)))
            #expect(DNSMessage(bytes: forwarded)?.addresses.map(\.description) == ["fd00::3"])
        }
    }
}
