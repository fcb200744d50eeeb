import Foundation
import LockCore
import Logging
import Synchronization
import Testing

@testable import LockEnforcement

#if canImport(Glibc)
import Glibc
#endif

/// The forwarder on loopback against a scripted upstream server (`DNSTestServer`).
@Suite struct DNSForwarderTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    static let isRoot = getuid() == 0

    /// The upstream: `*.allowed.test` (and `nN.allowed.test` with 10.0.x.y for N), truncation,
    /// silence and SERVFAIL on request; anything under `blocked.test` must never arrive.
    static func upstream() throws -> DNSTestServer {
        try DNSTestServer { name, _ in
            if name == "trunc.test" { return .truncate(["192.0.2.7", "2001:db8::7"]) }
            if name == "slow.test" { return .drop }
            if name == "fail.test" { return .servfail }
            if name.hasPrefix("n"), name.hasSuffix(".allowed.test"), let number = Int(name.dropFirst().prefix { $0 != "." }) {
                return .answer(["10.0.\(number / 256).\(number % 256)"])
            }
            if name.hasSuffix("allowed.test") || name.hasSuffix("blocked.test") { return .answer(["198.18.0.3", "fd00::3"]) }
            return .nxdomain
        }
    }

    static let rules = BlockRules(block: DomainSet(["blocked.test", "other.example"]), allow: DomainSet(["ok.blocked.test"]))
    static let policy = DNSFilterPolicy(DNSFilterPolicyTests.desired([rules]))

    /// Without the answer cache unless asked: these tests watch what reaches upstream per query
    /// (DNSAnswerCacheTests test the cache, and the forwarder with it).
    static func settings(timeout: Duration = .seconds(2), attempts: Int = 2, cacheSize: Int = 0) -> DNSForwarder.Settings {
        DNSForwarder.Settings(
            listenAddresses: ["127.0.0.1"], port: 0, timeout: timeout, attempts: attempts,
            mark: isRoot ? DNSForwarder.defaultMark : nil, cacheSize: cacheSize)
    }

    /// Runs `body` with a started forwarder in front of `servers`, and stops it after.
    func withForwarder(
        _ servers: [DNSTestServer], settings: DNSForwarder.Settings = settings(),
        onBlocked: (@Sendable (DNSBlockedQuery) -> Void)? = nil,
        _ body: (DNSForwarder, DNSTestClient) async throws -> Void
    ) async throws {
        let configuration = ResolverConfiguration(servers: servers.flatMap { $0.configuration().servers })
        let forwarder = DNSForwarder(
            settings: settings, upstream: configuration, policy: Self.policy, onBlocked: onBlocked,
            logger: Self.logger)
        let port = try await forwarder.start()
        #expect(port != 0)
        #expect(forwarder.port == port)
        let client = try DNSTestClient(port: port)
        do {
            try await body(forwarder, client)
        } catch {
            await forwarder.stop()
            throw error
        }
        await forwarder.stop()
        for server in servers { server.stop() }
    }

    @Test(arguments: [1, 28, 65, 5, 15, 16] as [UInt16])
    func blockedNamesAreAnsweredLocally(type: UInt16) async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { _, client in
            for name in ["blocked.test", "m.blocked.test", "a.b.blocked.test", "BLOCKED.test.", "x.Other.Example"] {
                let query = DNSTestClient.query(id: 0x4242, name: name, type: type, edns: type == 65)
                let answer = try #require(client.ask(query), "\(name) type \(type)")
                let message = try #require(DNSMessage(bytes: answer))
                #expect(message.id == 0x4242)
                #expect(message.rcode == 0)
                #expect(answer[2] & 0x81 == 0x81, "QR and RD")
                #expect(answer[3] & 0x80 == 0x80, "RA")
                let questionEnd = query.count - (type == 65 ? 11 : 0)
                #expect(Array(answer[12..<questionEnd]) == Array(query[12..<questionEnd]), "question echoed as asked")
                switch type {
                case 1: #expect(message.answers.map(\.data) == [[0, 0, 0, 0]])
                case 28: #expect(message.answers.map(\.data) == [[UInt8](repeating: 0, count: 16)])
                default: #expect(message.answers.isEmpty)
                }
                if !message.answers.isEmpty {
                    let ttl = answer[12 + (questionEnd - 12) + 6..<12 + (questionEnd - 12) + 10].reduce(0) { $0 << 8 | UInt32($1) }
                    #expect(ttl <= 10)
                }
                #expect((answer[10] == 0 && answer[11] == 1) == (type == 65), "OPT only when asked with one")
            }
        }
        #expect(
            !server.names.contains { $0.hasSuffix("blocked.test") || $0.hasSuffix("other.example") },
            "blocked names never reach upstream: \(server.names)")
    }

    @Test func unblockedNamesAreForwardedVerbatim() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            for (index, name) in ["allowed.test", "ok.blocked.test", "x.ok.blocked.test", "Allowed.TEST."].enumerated() {
                let query = DNSTestClient.query(id: UInt16(100 + index), name: name, type: 1, edns: true, dnssecOK: true)
                let answer = try #require(client.ask(query), "\(name)")
                let sent = try #require(server.replies.last)
                #expect(answer == DNSTestClient.withID(sent, UInt16(100 + index)), "the upstream's answer, byte for byte")
                let received = try #require(server.queries.last)
                #expect(Array(received[2...]) == Array(query[2...]), "the query as the client sent it, EDNS and DO bit included")
                #expect(DNSMessage(bytes: answer)?.addresses.map(\.description) == ["198.18.0.3"])
            }
            let nxdomain = try #require(client.ask(DNSTestClient.query(id: 7, name: "unknown.example", type: 1)))
            #expect(DNSMessage(bytes: nxdomain)?.rcode == 3, "NXDOMAIN passed on, nothing invented")
            let statistics = await forwarder.statistics()
            #expect(statistics.forwarded == 5)
            #expect(statistics.answered == 5)
            #expect(statistics.blocked == 0)
        }
    }

    @Test func theSiteMeterCountsAnsweredQueriesPerMeteredNameButNotBlockedAnswers() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            _ = client.ask(DNSTestClient.query(id: 199, name: "allowed.test", type: 1))
            #expect(await forwarder.takeMeterCounts().isEmpty, "nothing metered yet")
            // ok.blocked.test is covered by blocked.test: counted under the wider name.
            forwarder.setMetered(DomainSuffixSet(["allowed.test", "blocked.test", "ok.blocked.test"]))
            let names = ["allowed.test", "WWW.Allowed.Test.", "m.blocked.test", "ok.blocked.test", "x.ok.blocked.test", "unknown.example"]
            for (index, name) in names.enumerated() { _ = client.ask(DNSTestClient.query(id: UInt16(200 + index), name: name, type: 1)) }
            #expect(await forwarder.takeMeterCounts() == ["allowed.test": 2, "blocked.test": 2], "m.blocked.test was answered as blocked")
            #expect(await forwarder.takeMeterCounts().isEmpty, "taken once")
            forwarder.setMetered(.empty)
            _ = client.ask(DNSTestClient.query(id: 300, name: "allowed.test", type: 1))
            #expect(await forwarder.takeMeterCounts().isEmpty)
        }
    }

    @Test func truncatedAnswersAreFetchedOverTCP() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            let answer = try #require(client.ask(DNSTestClient.query(id: 9, name: "trunc.test", type: 28)))
            let message = try #require(DNSMessage(bytes: answer))
            #expect(!message.truncated)
            #expect(message.id == 9)
            #expect(message.addresses.map(\.description) == ["2001:db8::7"])
            #expect(server.tcpQueries == 1)
            #expect(await forwarder.statistics().tcpFallbacks == 1)
        }
    }

    @Test func clientsMayAskOverTCP() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, _ in
            let port = try #require(forwarder.port)
            let forwarded = try #require(DNSTestClient.askOverTCP(port: port, DNSTestClient.query(id: 11, name: "allowed.test", type: 1)))
            #expect(DNSMessage(bytes: forwarded)?.addresses.map(\.description) == ["198.18.0.3"])
            let blocked = try #require(DNSTestClient.askOverTCP(port: port, DNSTestClient.query(id: 12, name: "www.blocked.test", type: 1)))
            #expect(DNSMessage(bytes: blocked)?.answers.map(\.data) == [[0, 0, 0, 0]])
            let truncated = try #require(DNSTestClient.askOverTCP(port: port, DNSTestClient.query(id: 13, name: "trunc.test", type: 1)))
            #expect(DNSMessage(bytes: truncated)?.addresses.map(\.description) == ["192.0.2.7"])
        }
    }

    @Test func silentUpstreamGetsSERVFAILAfterEveryTry() async throws {
        let server = try Self.upstream()
        try await withForwarder([server], settings: Self.settings(timeout: .milliseconds(150), attempts: 2)) { forwarder, client in
            let started = ContinuousClock.now
            let answer = try #require(client.ask(DNSTestClient.query(id: 21, name: "slow.test", type: 1, edns: true)))
            let elapsed = ContinuousClock.now - started
            let message = try #require(DNSMessage(bytes: answer))
            #expect(message.rcode == 2)
            #expect(message.questionName == "slow.test")
            #expect(answer[11] == 1, "OPT echoed")
            #expect(elapsed >= .milliseconds(290) && elapsed < .seconds(2), "two tries of 150 ms: \(elapsed)")
            let statistics = await forwarder.statistics()
            #expect(statistics.upstreamTimeouts == 2)
            #expect(statistics.failed == 1)
            #expect(statistics.inFlight == 0)
            #expect(server.udpQueries == 2)
        }
    }

    @Test func aServerThatDoesNotAnswerIsReplacedByTheNext() async throws {
        let dead = try DNSTestServer { _, _ in .drop }
        let alive = try Self.upstream()
        try await withForwarder([dead, alive], settings: Self.settings(timeout: .milliseconds(200))) { _, client in
            let first = try #require(client.ask(DNSTestClient.query(id: 31, name: "allowed.test", type: 1)))
            #expect(DNSMessage(bytes: first)?.addresses.map(\.description) == ["198.18.0.3"])
            // Later queries go to the server that answered, without waiting for the dead one.
            let started = ContinuousClock.now
            let second = try #require(client.ask(DNSTestClient.query(id: 32, name: "allowed.test", type: 28)))
            #expect(ContinuousClock.now - started < .milliseconds(150))
            #expect(DNSMessage(bytes: second)?.addresses.map(\.description) == ["fd00::3"])
            #expect(dead.udpQueries == 1)
        }
    }

    @Test func upstreamSERVFAILIsPassedOnWhenNoOtherServerHelps() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { _, client in
            let answer = try #require(client.ask(DNSTestClient.query(id: 41, name: "fail.test", type: 1)))
            #expect(answer == DNSTestClient.withID(try #require(server.replies.last), 41))
        }
    }

    @Test func noUpstreamServersMeansSERVFAILNotSilence() async throws {
        let forwarder = DNSForwarder(
            settings: Self.settings(), upstream: ResolverConfiguration(servers: []),
            policy: Self.policy, logger: Self.logger)
        let client = try DNSTestClient(port: try await forwarder.start())
        let answer = try #require(client.ask(DNSTestClient.query(id: 51, name: "allowed.test", type: 1)))
        #expect(DNSMessage(bytes: answer)?.rcode == 2)
        let blocked = try #require(client.ask(DNSTestClient.query(id: 52, name: "blocked.test", type: 1)))
        #expect(DNSMessage(bytes: blocked)?.answers.count == 1, "blocking needs no upstream")
        await forwarder.stop()
    }

    @Test func aThousandQueriesInFlightAllAnsweredCorrectly() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            let count = 1_000
            for number in 0..<count {
                let name = number % 10 == 0 ? "n\(number).blocked.test" : "n\(number).allowed.test"
                client.send(DNSTestClient.query(id: UInt16(number), name: name, type: 1))
            }
            var answers: [UInt16: [UInt8]] = [:]
            while answers.count < count, let answer = client.receive(timeout: 5) {
                answers[UInt16(answer[0]) << 8 | UInt16(answer[1])] = answer
            }
            #expect(answers.count == count)
            var wrong: [Int] = []
            for number in 0..<count {
                guard let answer = answers[UInt16(number)], let message = DNSMessage(bytes: answer) else {
                    wrong.append(number)
                    continue
                }
                let expected = number % 10 == 0 ? "0.0.0.0" : "10.0.\(number / 256).\(number % 256)"
                let expectedName = number % 10 == 0 ? "n\(number).blocked.test" : "n\(number).allowed.test"
                let addresses =
                    number % 10 == 0
                    ? message.answers.map { $0.data.map(String.init).joined(separator: ".") }
                    : message.addresses.map(\.description)
                if addresses != [expected] || message.questionName != expectedName { wrong.append(number) }
            }
            #expect(wrong.isEmpty, "wrong or missing answers: \(wrong.prefix(10))")
            let statistics = await forwarder.statistics()
            #expect(statistics.blocked == 100)
            #expect(statistics.answered == 900)
            #expect(statistics.failed == 0)
        }
    }

    @Test func malformedPacketsNeverStopIt() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            client.send([1, 2, 3])
            client.send(DNSTestClient.query(id: 61, name: "allowed.test", type: 1, flags: 0x8180))  // a response
            var noQuestion = DNSTestClient.query(id: 62, name: "allowed.test", type: 1)
            noQuestion[5] = 0
            let formerr = try #require(client.ask(noQuestion))
            #expect(formerr == [0, 62, 0x81, 0x81, 0, 0, 0, 0, 0, 0, 0, 0])
            let notimp = try #require(client.ask(DNSTestClient.query(id: 63, name: "allowed.test", type: 1, flags: 0x2100)))
            #expect(notimp[3] & 0x0f == 4)
            var random = SystemRandomNumberGenerator()
            for _ in 0..<2_000 {
                client.send((0..<Int.random(in: 0...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            while client.receive(timeout: 0.3) != nil {}
            let answer = try #require(client.ask(DNSTestClient.query(id: 64, name: "allowed.test", type: 1)))
            #expect(DNSMessage(bytes: answer)?.addresses.map(\.description) == ["198.18.0.3"])
            // TCP: a frame of junk, then a good query on another connection.
            let port = try #require(forwarder.port)
            _ = DNSTestClient.askOverTCP(port: port, [0xff, 0xff, 0xff], timeout: 0.5)
            #expect(DNSTestClient.askOverTCP(port: port, DNSTestClient.query(id: 65, name: "blocked.test", type: 1)) != nil)
            let statistics = await forwarder.statistics()
            #expect(statistics.dropped >= 2)
            #expect(statistics.refused >= 2)
        }
        #expect(!server.names.contains("blocked.test"))
    }

    @Test func reportsEachBlockedAnswer() async throws {
        let server = try Self.upstream()
        let seen = Mutex<[DNSBlockedQuery]>([])
        try await withForwarder([server], onBlocked: { record in seen.withLock { $0.append(record) } }) { _, client in
            _ = client.ask(DNSTestClient.query(id: 71, name: "M.Blocked.Test.", type: 65))
            _ = client.ask(DNSTestClient.query(id: 72, name: "allowed.test", type: 1))
        }
        #expect(
            seen.withLock { $0 } == [
                DNSBlockedQuery(name: "m.blocked.test", rule: "blocked.test", client: "127.0.0.1", type: 65, overTCP: false)
            ])
    }

    @Test func policySwapsDuringAQueryStormFailNoQuery() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            // Both policies block blocked.test; they differ in a large set of other names, so
            // every swap builds and frees real sets.
            let bulk = (0..<20_000).map { "bulk\($0).example" }
            let policies = [
                DNSFilterPolicy(DNSFilterPolicyTests.desired([Self.rules, BlockRules(block: DomainSet(bulk))])),
                Self.policy,
            ]
            // A thread of its own: the query loop below blocks a thread of the cooperative pool.
            let control = Mutex((stop: false, swaps: 0))
            let swapping = Thread {
                while !control.withLock({ $0.stop }) {
                    let swaps = control.withLock { state -> Int in
                        state.swaps += 1
                        return state.swaps
                    }
                    forwarder.setPolicy(policies[swaps % 2])
                    if swaps % 20 == 0 {
                        forwarder.setPolicy(
                            DNSFilterPolicy(DNSFilterPolicyTests.desired([Self.rules, BlockRules(block: DomainSet(bulk.prefix(2_000)))])))
                    }
                    usleep(1_000)
                }
            }
            swapping.start()
            var failures: [String] = []
            for round in 0..<6 {
                for number in 0..<500 {
                    let blocked = number % 2 == 0
                    let name = blocked ? "s\(round).n\(number).blocked.test" : "n\(number).allowed.test"
                    client.send(DNSTestClient.query(id: UInt16(round * 500 + number), name: name, type: 1))
                }
                var answered = 0
                while answered < 500, let answer = client.receive(timeout: 5) {
                    answered += 1
                    let id = Int(answer[0]) << 8 | Int(answer[1])
                    let number = id % 500
                    guard let message = DNSMessage(bytes: answer), message.rcode == 0 else {
                        failures.append("\(id): bad answer")
                        continue
                    }
                    let data = message.answers.first?.data ?? []
                    if number % 2 == 0, data != [0, 0, 0, 0] { failures.append("\(id) not blocked") }
                    if number % 2 == 1, data != [10, 0, UInt8(number / 256), UInt8(number % 256)] {
                        failures.append("\(id) wrong address")
                    }
                }
                if answered < 500 { failures.append("round \(round): only \(answered) answers") }
            }
            let swaps = control.withLock { state -> Int in
                state.stop = true
                return state.swaps
            }
            #expect(swaps > 10)
            #expect(failures.isEmpty, "\(failures.prefix(10))")
        }
    }

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
}

extension DNSForwarderTests {
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
