import Foundation
import LockCore
import Testing

@testable import LockEnforcement

/// The forwarder's answer cache: what it keeps, for how long, under which key, what it serves;
/// and, through a real forwarder, that a block always wins over a kept answer.
@Suite struct DNSAnswerCacheTests {
    static let second: UInt64 = 1_000_000_000

    static func parsed(_ packet: [UInt8]) throws -> DNSQuery {
        var name = [UInt8](repeating: 0, count: 256)
        let result = packet.withUnsafeBytes { bytes in name.withUnsafeMutableBytes { DNSQuery.parse(bytes, name: $0) } }
        guard case .query(let query) = result else { throw NFTablesError(message: "not a query") }
        return query
    }

    static func key(_ packet: [UInt8], server: [UInt8] = []) throws -> [UInt8] {
        let query = try parsed(packet)
        return packet.withUnsafeBytes { DNSAnswerCache.key($0, query, server: server) }
    }

    /// A response with `records` (owner, type, TTL, data) in the answer section and `authority`
    /// after it; flags as given.
    static func response(
        id: UInt16 = 1, name: String, type: UInt16 = 1, rcode: UInt8 = 0, truncated: Bool = false,
        answers: [(UInt16, UInt32, [UInt8])] = [], authority: [(UInt16, UInt32, [UInt8])] = []
    ) -> [UInt8] {
        var bytes: [UInt8] = [
            UInt8(id >> 8), UInt8(id & 0xff), truncated ? 0x83 : 0x81, 0x80 | rcode, 0, 1, 0, UInt8(answers.count), 0,
            UInt8(authority.count), 0, 0,
        ]
        bytes += DNSMessage.encode(name: name)!
        bytes += [UInt8(type >> 8), UInt8(type & 0xff), 0, 1]
        for (recordType, ttl, data) in answers + authority {
            bytes += [0xC0, 0x0C, UInt8(recordType >> 8), UInt8(recordType & 0xff), 0, 1]
            bytes += [UInt8(ttl >> 24), UInt8((ttl >> 16) & 0xff), UInt8((ttl >> 8) & 0xff), UInt8(ttl & 0xff)]
            bytes += [UInt8(data.count >> 8), UInt8(data.count & 0xff)] + data
        }
        return bytes
    }

    /// SOA RDATA with root names and MINIMUM `minimum`.
    static func soa(minimum: UInt32) -> [UInt8] {
        [0, 0] + [UInt8](repeating: 0, count: 16) + [
            UInt8(minimum >> 24), UInt8((minimum >> 16) & 0xff), UInt8((minimum >> 8) & 0xff), UInt8(minimum & 0xff),
        ]
    }

    static func ttls(_ answer: [UInt8]) -> [UInt32] {
        let offsets = answer.withUnsafeBytes { DNSAnswerCache.lifetime($0)?.offsets } ?? []
        return offsets.map { offset in answer[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) } }
    }

    func serve(_ cache: inout DNSAnswerCache, _ packet: [UInt8], at now: UInt64, server: [UInt8] = []) throws -> [UInt8]? {
        let query = try Self.parsed(packet)
        let key = try Self.key(packet, server: server)
        return packet.withUnsafeBytes {
            cache.answer(
                key, id: query.id, flags: query.flags, question: UnsafeRawBufferPointer(rebasing: $0[12..<query.questionEnd]), now: now)
        }
    }

    @Test func aPositiveAnswerIsServedWithItsTTLCountedDownUntilItExpires() throws {
        var cache = DNSAnswerCache(capacity: 10)
        let query = DNSTestClient.query(id: 7, name: "a.example", type: 1)
        let upstream = Self.response(id: 99, name: "a.example", answers: [(1, 300, [192, 0, 2, 1]), (1, 60, [192, 0, 2, 2])])
        upstream.withUnsafeBytes { cache.store(try! Self.key(query), $0, now: 1000 * Self.second) }
        let soon = try #require(try serve(&cache, DNSTestClient.withID(query, 8), at: 1010 * Self.second + 5))
        #expect(soon[0] == 0 && soon[1] == 8, "the asker's ID")
        #expect(Self.ttls(soon) == [290, 50], "each TTL decremented by the 10 s kept")
        #expect(Array(soon[12...]) != Array(upstream[12...]) && Array(soon[2..<12]) == Array(upstream[2..<12]))
        #expect(try serve(&cache, query, at: 1059 * Self.second) != nil)
        #expect(try serve(&cache, query, at: 1060 * Self.second) == nil, "gone with its smallest TTL")
        #expect(cache.count == 0)
    }

    @Test func keysIgnoreLetterCaseButNotTypeClassEDNSOrServer() throws {
        var cache = DNSAnswerCache(capacity: 10)
        let query = DNSTestClient.query(id: 1, name: "a.example", type: 1)
        Self.response(name: "a.example", answers: [(1, 300, [192, 0, 2, 1])]).withUnsafeBytes {
            cache.store(try! Self.key(query), $0, now: 0)
        }
        let mixed = try #require(try serve(&cache, DNSTestClient.query(id: 2, name: "A.eXample.", type: 1), at: Self.second))
        #expect(Array(mixed[12..<23]) == Array(DNSTestClient.query(id: 2, name: "A.eXample", type: 1)[12..<23]), "the asker's letter case")
        #expect(try serve(&cache, DNSTestClient.query(id: 3, name: "a.example", type: 28), at: Self.second) == nil, "AAAA")
        var chaos = query
        chaos[chaos.count - 1] = 3
        #expect(try serve(&cache, chaos, at: Self.second) == nil, "class CH")
        #expect(try serve(&cache, DNSTestClient.query(id: 4, name: "a.example", type: 1, edns: true), at: Self.second) == nil, "EDNS")
        #expect(try serve(&cache, query, at: Self.second, server: [198, 18, 0, 2, 0, 53]) == nil, "asked of another server")
    }

    @Test func eachAskerGetsItsOwnRecursionDesiredBitAndADIsPartOfTheKey() throws {
        var cache = DNSAnswerCache(capacity: 10)
        // The first asker wanted recursion (RD): the upstream's answer says so.
        let recursive = DNSTestClient.query(id: 1, name: "a.example", type: 1, flags: 0x0100)
        let upstream = Self.response(name: "a.example", answers: [(1, 300, [192, 0, 2, 1])])
        #expect(upstream[2] & 0x01 == 1 && upstream[3] & 0x80 != 0, "RD and RA set")
        upstream.withUnsafeBytes { cache.store(try! Self.key(recursive), $0, now: 0) }
        let iterative = try #require(try serve(&cache, DNSTestClient.query(id: 2, name: "a.example", type: 1, flags: 0), at: 1))
        #expect(iterative[2] & 0x01 == 0, "RD as the second asker sent it")
        #expect(iterative[2] & 0x80 != 0 && iterative[3] & 0x80 != 0, "still a response, RA as the server said")
        let again = try #require(try serve(&cache, DNSTestClient.query(id: 3, name: "a.example", type: 1, flags: 0x0100), at: 1))
        #expect(again[2] & 0x01 == 1)
        #expect(Array(again[4...]) == Array(upstream[4...]))
        // AD in a query asks whether the server validated: not answered with an answer to a query without it.
        #expect(try serve(&cache, DNSTestClient.query(id: 4, name: "a.example", type: 1, flags: 0x0120), at: 1) == nil)
    }

    @Test func truncatedFailedZeroTTLAndSOALessNegativeAnswersAreNeverKept() throws {
        var cache = DNSAnswerCache(capacity: 10)
        let query = DNSTestClient.query(id: 1, name: "a.example", type: 1)
        let unkept = [
            Self.response(name: "a.example", truncated: true, answers: [(1, 300, [192, 0, 2, 1])]),
            Self.response(name: "a.example", rcode: 2),
            Self.response(name: "a.example", rcode: 5),
            Self.response(name: "a.example", answers: [(1, 0, [192, 0, 2, 1])]),
            Self.response(name: "a.example", rcode: 3),
            Self.response(name: "a.example"),
        ]
        for response in unkept {
            response.withUnsafeBytes { cache.store(try! Self.key(query), $0, now: 0) }
            #expect(try serve(&cache, query, at: 1) == nil)
        }
        #expect(cache.count == 0)
    }

    @Test func negativeAnswersLiveForTheirSOABound() throws {
        var cache = DNSAnswerCache(capacity: 10)
        let query = DNSTestClient.query(id: 1, name: "none.example", type: 1)
        // NXDOMAIN: the SOA record's TTL 900, its MINIMUM 30: kept 30 s (RFC 2308 5).
        Self.response(name: "none.example", rcode: 3, authority: [(6, 900, Self.soa(minimum: 30))]).withUnsafeBytes {
            cache.store(try! Self.key(query), $0, now: 0)
        }
        let served = try #require(try serve(&cache, query, at: 29 * Self.second))
        #expect(served[3] & 0xf == 3)
        #expect(try serve(&cache, query, at: 30 * Self.second) == nil)
        // NODATA: SOA TTL 20 below MINIMUM 600.
        let aaaa = DNSTestClient.query(id: 1, name: "v4only.example", type: 28)
        Self.response(name: "v4only.example", type: 28, authority: [(6, 20, Self.soa(minimum: 600))]).withUnsafeBytes {
            cache.store(try! Self.key(aaaa), $0, now: 0)
        }
        #expect(try serve(&cache, aaaa, at: 19 * Self.second) != nil)
        #expect(try serve(&cache, aaaa, at: 20 * Self.second) == nil)
    }

    @Test func theLeastRecentlyUsedAnswerMakesRoomAndTTLsAreCapped() throws {
        var cache = DNSAnswerCache(capacity: 2, maxTTL: 100)
        let queries = ["a", "b", "c"].map { DNSTestClient.query(id: 1, name: "\($0).example", type: 1) }
        for (query, name) in zip(queries.prefix(2), ["a", "b"]) {
            Self.response(name: "\(name).example", answers: [(1, 86400, [192, 0, 2, 1])]).withUnsafeBytes {
                cache.store(try! Self.key(query), $0, now: 0)
            }
        }
        #expect(try serve(&cache, queries[0], at: 1) != nil, "a used: b is now the oldest")
        Self.response(name: "c.example", answers: [(1, 86400, [192, 0, 2, 1])]).withUnsafeBytes {
            cache.store(try! Self.key(queries[2]), $0, now: 0)
        }
        #expect(cache.count == 2)
        #expect(try serve(&cache, queries[1], at: 1) == nil)
        #expect(try serve(&cache, queries[0], at: 1) != nil)
        #expect(try serve(&cache, queries[2], at: 99 * Self.second) != nil)
        #expect(try serve(&cache, queries[2], at: 100 * Self.second) == nil, "kept at most maxTTL")
    }

    // MARK: - Through the forwarder

    func withForwarder(_ body: (DNSForwarder, DNSTestClient, DNSTestServer) async throws -> Void) async throws {
        let server = try DNSForwarderTests.upstream()
        let forwarder = DNSForwarder(
            settings: DNSForwarderTests.settings(cacheSize: 100), upstream: server.configuration(), policy: .empty,
            logger: DNSForwarderTests.logger)
        _ = try await forwarder.start()
        let client = try DNSTestClient(port: try #require(forwarder.port))
        do { try await body(forwarder, client, server) } catch {
            await forwarder.stop()
            throw error
        }
        await forwarder.stop()
        server.stop()
    }

    @Test func aRepeatedQueryIsAnsweredWithoutUpstreamAndABlockStillWins() async throws {
        try await withForwarder { forwarder, client, server in
            let first = try #require(client.ask(DNSTestClient.query(id: 1, name: "m.blocked.test", type: 1)))
            #expect(DNSMessage(bytes: first)?.addresses.map(\.description) == ["198.18.0.3"], "not blocked yet")
            let again = try #require(client.ask(DNSTestClient.query(id: 2, name: "M.Blocked.Test", type: 1)))
            #expect(DNSMessage(bytes: again)?.addresses.map(\.description) == ["198.18.0.3"])
            #expect(server.udpQueries == 1, "the second from the cache")
            #expect(await forwarder.statistics().fromCache == 1)
            // The block begins: the kept answer is never served again while it holds.
            forwarder.setPolicy(DNSForwarderTests.policy)
            for id in 3..<6 {
                let blocked = try #require(client.ask(DNSTestClient.query(id: UInt16(id), name: "m.blocked.test", type: 1)))
                #expect(DNSMessage(bytes: blocked)?.answers.map(\.data) == [[0, 0, 0, 0]])
            }
            #expect(await forwarder.statistics().fromCache == 1)
            // And it ends: the name is answered again (from the cache, within its TTL).
            forwarder.setPolicy(.empty)
            let after = try #require(client.ask(DNSTestClient.query(id: 7, name: "m.blocked.test", type: 1)))
            #expect(DNSMessage(bytes: after)?.addresses.map(\.description) == ["198.18.0.3"])
            #expect(server.udpQueries == 1)
        }
    }

    @Test func otherUpstreamServersEmptyTheCache() async throws {
        try await withForwarder { forwarder, client, server in
            let first = try #require(client.ask(DNSTestClient.query(id: 1, name: "a.allowed.test", type: 1)))
            #expect(DNSMessage(bytes: first)?.addresses.map(\.description) == ["198.18.0.3"])
            _ = try #require(client.ask(DNSTestClient.query(id: 2, name: "a.allowed.test", type: 1)))
            #expect(await forwarder.statistics().fromCache == 1)
            // resolv.conf now names another server (another network): its answers, not the old ones.
            let other = try DNSTestServer { _, _ in .answer(["192.0.2.99"]) }
            defer { other.stop() }
            forwarder.setUpstream(other.configuration())
            let after = try #require(client.ask(DNSTestClient.query(id: 3, name: "a.allowed.test", type: 1)))
            #expect(DNSMessage(bytes: after)?.addresses.map(\.description) == ["192.0.2.99"])
            #expect(await forwarder.statistics().fromCache == 1)
            #expect(await forwarder.statistics().cacheEntries == 1, "the old server's answers are gone")
            // The same servers again change nothing.
            forwarder.setUpstream(other.configuration())
            _ = try #require(client.ask(DNSTestClient.query(id: 4, name: "a.allowed.test", type: 1)))
            #expect(await forwarder.statistics().fromCache == 2)
            #expect(server.udpQueries == 1)
        }
    }

    @Test func failuresAreAskedAgain() async throws {
        try await withForwarder { forwarder, client, server in
            for id in 1...2 {
                let answer = try #require(client.ask(DNSTestClient.query(id: UInt16(id), name: "fail.test", type: 1)))
                #expect(answer[3] & 0xf == 2)
            }
            #expect(server.udpQueries == 2, "SERVFAIL is never kept")
            #expect(await forwarder.statistics().fromCache == 0)
            // A truncated UDP answer is not kept; the whole one fetched over TCP is.
            for id in 3...4 {
                let answer = try #require(client.ask(DNSTestClient.query(id: UInt16(id), name: "trunc.test", type: 1)))
                #expect(answer[2] & 0x02 == 0 && DNSMessage(bytes: answer)?.addresses.map(\.description) == ["192.0.2.7"])
            }
            #expect(server.tcpQueries == 1 && server.udpQueries == 3)
            #expect(await forwarder.statistics().fromCache == 1)
        }
    }
}
