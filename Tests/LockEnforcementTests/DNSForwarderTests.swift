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
    /// The upstream sockets' mark: this test process's own, not the daemon's, whose sockets in
    /// other processes on the machine (other test runs) the filter would rightly report as
    /// borrowing its exemption.
    static let mark = UInt32(0x4000_0000) | UInt32(getpid())

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
            mark: isRoot ? mark : nil, cacheSize: cacheSize)
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
}
