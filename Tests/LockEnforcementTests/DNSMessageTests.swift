import LockCore
import Testing

@testable import LockEnforcement

@Suite struct DNSMessageTests {
    @Test func encodesAQueryWithEDNS() throws {
        let bytes = try #require(DNSMessage.query(id: 0xBEEF, name: "WWW.Example.com.", type: .aaaa))
        #expect(
            bytes == [
                0xBE, 0xEF, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                3, 0x77, 0x77, 0x77, 7, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 3, 0x63, 0x6f, 0x6d, 0,
                0x00, 0x1c, 0x00, 0x01,
                0, 0x00, 0x29, 0x04, 0xd0, 0, 0, 0, 0, 0x00, 0x00,
            ])
        let plain = try #require(DNSMessage.query(id: 1, name: "a.b", type: .a, edns: false))
        #expect(plain.count == 12 + 5 + 4)
        #expect(plain[11] == 0)
    }

    @Test(arguments: [
        "", ".", "a..b", "-", "-a.com", "a-.com", "bad name.com", "ünïcode.com", String(repeating: "a", count: 64) + ".com",
        (0..<60).map { _ in "abcd" }.joined(separator: "."),
    ])
    func rejectsInvalidNames(name: String) {
        #expect(!DNSMessage.isValidHostName(name))
        #expect(DNSMessage.query(id: 1, name: name, type: .a) == nil)
    }

    @Test(arguments: ["example.com", "xn--bcher-kva.example", "_dmarc.example.com", "a-b.c-d.e", "example.com."])
    func acceptsValidNames(name: String) {
        #expect(DNSMessage.isValidHostName(name))
    }

    /// A response as a recursive resolver sends it: the question, then a CNAME chain with
    /// compression pointers, then the addresses of the last name in the chain.
    static let cnameResponse: [UInt8] = [
        0x12, 0x34, 0x81, 0x80, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
        // question: www.example.com A IN (offset 12)
        3, 0x77, 0x77, 0x77, 7, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 3, 0x63, 0x6f, 0x6d, 0,
        0x00, 0x01, 0x00, 0x01,
        // www.example.com CNAME cdn.example.net (cdn. at offset 45, example at 49)
        0xC0, 0x0C, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x11,
        3, 0x63, 0x64, 0x6e, 7, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 3, 0x6e, 0x65, 0x74, 0,
        // cdn.example.net A 192.0.2.1
        0xC0, 45, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x04, 192, 0, 2, 1,
        // cdn.example.net A 192.0.2.2
        0xC0, 45, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x04, 192, 0, 2, 2,
        // unrelated.example.net (a label then a pointer to "example.net") A 198.51.100.1: not in the chain
        9, 0x75, 0x6e, 0x72, 0x65, 0x6c, 0x61, 0x74, 0x65, 0x64, 0xC0, 49,
        0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x04, 198, 51, 100, 1,
    ]

    @Test func parsesACNAMEChainWithCompression() throws {
        let message = try #require(DNSMessage(bytes: Self.cnameResponse))
        #expect(message.id == 0x1234)
        #expect(message.isResponse)
        #expect(!message.truncated)
        #expect(message.rcode == 0)
        #expect(message.questionName == "www.example.com")
        #expect(message.questionType == 1)
        #expect(message.answers.count == 4)
        #expect(message.answers[0].target == "cdn.example.net")
        #expect(message.answers[3].name == "unrelated.example.net")
        #expect(message.addresses.map(\.description) == ["192.0.2.1", "192.0.2.2"])
    }

    @Test func rejectsMalformedMessages() {
        var truncated = Self.cnameResponse
        truncated.removeLast(3)
        #expect(DNSMessage(bytes: truncated) == nil)
        var forwardPointer = Self.cnameResponse
        forwardPointer[33] = 0xC0
        forwardPointer[34] = 200  // points past itself
        #expect(DNSMessage(bytes: forwardPointer) == nil)
        var selfLoop = Self.cnameResponse
        selfLoop[12] = 0xC0
        selfLoop[13] = 12  // the question name points at itself
        #expect(DNSMessage(bytes: selfLoop) == nil)
        var twoQuestions = Self.cnameResponse
        twoQuestions[5] = 2
        #expect(DNSMessage(bytes: twoQuestions) == nil)
        #expect(DNSMessage(bytes: [0, 1, 2]) == nil)
    }

    @Test func readsFlagsAndIgnoresWrongSizedAddresses() throws {
        var bytes = Self.cnameResponse
        bytes[2] = 0x83  // QR, TC, RD
        bytes[3] = 0x82  // RA, SERVFAIL
        let message = try #require(DNSMessage(bytes: bytes))
        #expect(message.truncated)
        #expect(message.rcode == 2)
        // An A record with a 3-byte address is skipped, not misread.
        let odd = DNSTestServer.response(
            id: 7, name: "a.example", type: 1,
            records: [
                ("a.example", 1, [192, 0, 2]), ("a.example", 1, [192, 0, 2, 9]), ("a.example", 28, [192, 0, 2, 1]),
            ])
        let parsed = try #require(DNSMessage(bytes: odd))
        #expect(parsed.answers.count == 3)
        #expect(parsed.addresses.map(\.description) == ["192.0.2.9"])
    }
}
