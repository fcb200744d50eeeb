import LockCore
import Testing

@testable import LockEnforcement

@Suite struct DNSQueryTests {
    /// Parses `packet`; returns the outcome and the canonical name.
    func parse(_ packet: [UInt8]) -> (DNSQuery.Parsed, String) {
        packet.withUnsafeBytes { bytes in
            var name = [UInt8](repeating: 0xAA, count: 256)
            let parsed = name.withUnsafeMutableBytes { DNSQuery.parse(bytes, name: $0) }
            if case .query(let query) = parsed { return (parsed, String(decoding: name[0..<query.nameLength], as: UTF8.self)) }
            return (parsed, "")
        }
    }

    func query(_ packet: [UInt8]) throws -> DNSQuery {
        guard case .query(let query) = parse(packet).0 else { throw NFTablesError(message: "not a query: \(parse(packet).0)") }
        return query
    }

    func blocked(_ packet: [UInt8], ttl: UInt32 = 5) throws -> [UInt8] {
        let parsed = try query(packet)
        return packet.withUnsafeBytes { parsed.blockedResponse($0, ttl: ttl) }
    }

    @Test func blockedAWithEDNSByteForByte() throws {
        let packet = DNSTestClient.query(id: 0xBEEF, name: "BLOCKED.test.", type: 1, edns: true, dnssecOK: true)
        #expect(parse(packet).1 == "blocked.test")
        #expect(
            try blocked(packet) == [
                0xBE, 0xEF, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 1,
                7, 0x42, 0x4C, 0x4F, 0x43, 0x4B, 0x45, 0x44, 4, 0x74, 0x65, 0x73, 0x74, 0, 0, 1, 0, 1,  // BLOCKED.test A IN, as asked
                0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 5, 0, 4, 0, 0, 0, 0,  // A 0.0.0.0, TTL 5
                0, 0, 41, 0x04, 0xD0, 0, 0, 0x80, 0, 0, 0,  // OPT 1232, DO echoed
            ])
    }

    @Test func blockedAAAAIsTheUnspecifiedAddress() throws {
        let answer = try blocked(DNSTestClient.query(id: 1, name: "m.blocked.test", type: 28))
        let message = try #require(DNSMessage(bytes: answer))
        #expect(message.answers.count == 1)
        #expect(message.answers[0].type == 28)
        #expect(message.answers[0].data == [UInt8](repeating: 0, count: 16))
        #expect(answer[11] == 0, "no OPT when the query had none")
    }

    @Test(arguments: [65, 64, 5, 15, 16, 255, 33, 12] as [UInt16])
    func otherTypesGetAnEmptyAnswer(type: UInt16) throws {
        let answer = try blocked(DNSTestClient.query(id: 7, name: "blocked.test", type: type, edns: true))
        let message = try #require(DNSMessage(bytes: answer))
        #expect(message.rcode == 0)
        #expect(message.isResponse)
        #expect(message.answers.isEmpty)
        #expect(message.questionType == type)
        #expect(answer[10] == 0 && answer[11] == 1, "OPT echoed")
    }

    @Test func flagsAndClass() throws {
        // RD off, CD on, AD set by the client: RD and CD are copied, AD never claimed, RA set.
        let packet = DNSTestClient.query(id: 9, name: "blocked.test", type: 1, flags: 0x0030)
        let answer = try blocked(packet)
        #expect(answer[2] == 0x80)
        #expect(answer[3] == 0x90)
        // Class CHAOS: no address, an empty answer.
        var chaos = DNSTestClient.query(id: 9, name: "blocked.test", type: 1)
        chaos[chaos.count - 1] = 3
        #expect(try DNSMessage(bytes: blocked(chaos))?.answers.isEmpty == true)
        // A TTL above 10 is never used by the forwarder's settings.
        #expect(DNSForwarder.Settings(blockedTTL: 300).blockedTTL == 10)
    }

    @Test func unknownEDNSVersionGetsBADVERS() throws {
        var packet = DNSTestClient.query(id: 3, name: "blocked.test", type: 1, edns: true)
        packet[packet.count - 5] = 1  // version 1
        let answer = try blocked(packet)
        #expect(answer[3] & 0x0f == 0)
        #expect(answer[7] == 0, "no answer record")
        #expect(answer[answer.count - 6] == 1, "extended RCODE 1: BADVERS (16)")
    }

    @Test func servfailEchoesTheQuestion() throws {
        let packet = DNSTestClient.query(id: 0x1234, name: "Slow.Example", type: 28, edns: true)
        let parsed = try query(packet)
        let answer = packet.withUnsafeBytes { parsed.response($0, rcode: 2) }
        let message = try #require(DNSMessage(bytes: answer))
        #expect(message.id == 0x1234)
        #expect(message.rcode == 2)
        #expect(Array(answer[12..<parsed.questionEnd]) == Array(packet[12..<parsed.questionEnd]))
        #expect(parsed.udpLimit == 1232)
        #expect(try query(DNSTestClient.query(id: 1, name: "a.b", type: 1)).udpLimit == 512)
    }

    @Test func malformedPackets() {
        #expect(parse([]).0 == .ignore)
        #expect(parse([1, 2, 3]).0 == .ignore)
        #expect(parse(Array(repeating: 0, count: 11)).0 == .ignore)
        // A response sent to the forwarder is never answered.
        #expect(parse(DNSTestClient.query(id: 5, name: "a.b", type: 1, flags: 0x8180)).0 == .ignore)
        // Opcode STATUS: NOTIMP, ID and opcode kept.
        #expect(
            parse(DNSTestClient.query(id: 5, name: "a.b", type: 1, flags: 0x1100)).0
                == .reply([0, 5, 0x91, 0x84, 0, 0, 0, 0, 0, 0, 0, 0]))
        let formerr = DNSQuery.Parsed.reply([0, 5, 0x81, 0x81, 0, 0, 0, 0, 0, 0, 0, 0])
        var noQuestion = DNSTestClient.query(id: 5, name: "a.b", type: 1)
        noQuestion[5] = 0
        #expect(parse(noQuestion).0 == formerr)
        var twoQuestions = DNSTestClient.query(id: 5, name: "a.b", type: 1)
        twoQuestions[5] = 2
        #expect(parse(twoQuestions).0 == formerr)
        var cutShort = DNSTestClient.query(id: 5, name: "a.b", type: 1)
        cutShort.removeLast(3)
        #expect(parse(cutShort).0 == formerr)
        var pointer = DNSTestClient.query(id: 5, name: "a.b", type: 1)
        pointer[12] = 0xC0
        #expect(parse(pointer).0 == formerr)
        let longName = DNSTestClient.query(id: 5, name: (0..<130).map { _ in "a" }.joined(separator: "."), type: 1)
        #expect(parse(longName).0 == formerr)
        var twoOPT = DNSTestClient.query(id: 5, name: "a.b", type: 1, edns: true)
        twoOPT[11] = 2
        twoOPT += [0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0]
        #expect(parse(twoOPT).0 == formerr)
        var badAdditional = DNSTestClient.query(id: 5, name: "a.b", type: 1, edns: true)
        badAdditional[badAdditional.count - 1] = 9  // RDLENGTH past the end
        #expect(parse(badAdditional).0 == formerr)
    }

    @Test func randomJunkNeverTraps() {
        var random = SystemRandomNumberGenerator()
        for length in 0..<600 {
            var packet = (0..<(length % 300)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if packet.count > 2 { packet[2] &= 0x7f }  // mostly queries, to get past the first check
            _ = parse(packet)
        }
    }

    @Test func oddLabelsCannotLineUpWithRules() throws {
        // One label "blocked.test" (with a dot inside) is not the name blocked.test.
        var packet: [UInt8] = [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 12]
        packet += Array("blocked.test".utf8)
        packet += [0, 0, 1, 0, 1]
        let (parsed, name) = parse(packet)
        guard case .query = parsed else {
            Issue.record("not parsed")
            return
        }
        #expect(name.utf8.count == 12)
        #expect(name != "blocked.test")
        #expect(DNSFilterPolicy(DesiredBlock(domains: ["blocked.test"])).verdict(for: name) == nil)
        // The root name parses, with an empty canonical name.
        #expect(try query(DNSTestClient.query(id: 1, name: "", type: 2)).nameLength == 0)
    }

    @Test func sameQuestionIgnoresCaseOnly() {
        let query = DNSTestClient.query(id: 1, name: "Blocked.Test", type: 1)
        let same = DNSTestClient.query(id: 2, name: "blocked.TEST", type: 1, flags: 0x8180)
        let other = DNSTestClient.query(id: 2, name: "blocked.tesu", type: 1, flags: 0x8180)
        let otherType = DNSTestClient.query(id: 2, name: "blocked.test", type: 28, flags: 0x8180)
        func check(_ response: [UInt8]) -> Bool {
            response.withUnsafeBytes { r in query.withUnsafeBytes { DNSQuery.sameQuestion(r, $0, questionEnd: query.count) } }
        }
        #expect(check(same))
        #expect(!check(other))
        #expect(!check(otherType))
        #expect(!check(Array(same.prefix(14))))
    }
}
