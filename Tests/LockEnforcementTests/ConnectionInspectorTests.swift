import Testing

@testable import LockEnforcement

/// The verdicts on queued packets, from IPv4/IPv6 TCP segments as the kernel queues them.
@Suite struct ConnectionInspectorTests {
    /// An IPv4 (or IPv6) TCP segment from 198.18.0.1:40000 to 198.18.0.5:443 with `payload`.
    static func segment(_ payload: [UInt8], ack: UInt32 = 1000, v6: Bool = false, flags: UInt8 = 0x18) -> [UInt8] {
        var tcp: [UInt8] = [0x9c, 0x40, 0x01, 0xbb, 0, 0, 0, 1]
        tcp += withUnsafeBytes(of: ack.bigEndian, Array.init)
        tcp += [0x50, flags, 0xff, 0xff, 0, 0, 0, 0]
        if v6 {
            let length = UInt16(tcp.count + payload.count)
            var header: [UInt8] = [0x60, 0, 0, 0, UInt8(length >> 8), UInt8(length & 0xff), 6, 64]
            header += [0xfd, 0] + [UInt8](repeating: 0, count: 13) + [1]
            header += [0xfd, 0] + [UInt8](repeating: 0, count: 13) + [5]
            return header + tcp + payload
        }
        let total = UInt16(20 + tcp.count + payload.count)
        let header: [UInt8] = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xff), 0, 0, 0x40, 0, 64, 6, 0, 0, 198, 18, 0, 1, 198, 18, 0, 5]
        return header + tcp + payload
    }

    static func verdict(_ name: String) -> String? { name == "blocked.test" || name.hasSuffix(".blocked.test") ? "blocked.test" : nil }

    func decide(_ inspector: inout ConnectionInspector, _ bytes: [UInt8], at now: UInt64 = 1) -> ConnectionInspector.Decision {
        inspector.decide(QueuedPacket(ipPacket: bytes[...])!, now: now, verdict: Self.verdict)
    }

    @Test(arguments: [false, true])
    func theFirstPayloadDecides(v6: Bool) throws {
        var inspector = ConnectionInspector()
        #expect(decide(&inspector, Self.segment([], v6: v6, flags: 0x10)) == .pass, "the handshake's ACK")
        let request = Array("GET / HTTP/1.1\r\nHost: m.blocked.test\r\n\r\n".utf8)
        #expect(decide(&inspector, Self.segment(request, v6: v6)) == .refuse(name: "m.blocked.test", rule: "blocked.test"))
        var other = ConnectionInspector()
        #expect(decide(&other, Self.segment(Array("GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n".utf8), v6: v6)) == .allow)
        #expect(other.pendingCount == 0)
    }

    @Test func aRequestOverTwoSegments() {
        var inspector = ConnectionInspector()
        #expect(decide(&inspector, Self.segment(Array("GET / HTTP/1.1\r\nHo".utf8))) == .pass)
        #expect(inspector.pendingCount == 1)
        #expect(
            decide(&inspector, Self.segment(Array("st: x.blocked.test\r\n\r\n".utf8)))
                == .refuse(name: "x.blocked.test", rule: "blocked.test"))
        #expect(inspector.pendingCount == 0)
    }

    @Test func aServerThatSpeaksFirstIsNoWebConnection() {
        var inspector = ConnectionInspector()
        #expect(decide(&inspector, Self.segment([], ack: 1000, flags: 0x10)) == .pass)
        #expect(decide(&inspector, Self.segment([], ack: 1000, flags: 0x10)) == .pass)
        #expect(decide(&inspector, Self.segment([], ack: 1040, flags: 0x10)) == .allowUnnamed, "it acknowledges the server's greeting")
    }

    @Test func otherProtocolsAndForgottenConnections() {
        var inspector = ConnectionInspector()
        #expect(decide(&inspector, Self.segment(Array("SSH-2.0-OpenSSH_9.2\r\n".utf8))) == .allowUnnamed)
        #expect(decide(&inspector, Self.segment(Array("GET / HT".utf8)), at: 1) == .pass)
        inspector.expire(now: 60_000_000_000)
        #expect(inspector.pendingCount == 0)
        #expect(QueuedPacket(ipPacket: [0x45, 0, 0][...]) == nil)
    }

    /// Handed over by the main table (a blocked name's address, shared with other sites): only an
    /// allowed name lets it through; everything the check lets go unjudged elsewhere is refused.
    @Test func aHandedOverConnectionNeedsAnAllowedName() {
        func handedOver(_ inspector: inout ConnectionInspector, _ bytes: [UInt8]) -> ConnectionInspector.Decision {
            inspector.decide(QueuedPacket(ipPacket: bytes[...])!, now: 1, needsName: true, verdict: Self.verdict)
        }
        var allowed = ConnectionInspector()
        #expect(handedOver(&allowed, Self.segment([], flags: 0x02)) == .pass, "the SYN")
        #expect(handedOver(&allowed, Self.segment(Array("GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n".utf8))) == .allow)
        var blocked = ConnectionInspector()
        #expect(
            handedOver(&blocked, Self.segment(Array("GET / HTTP/1.1\r\nHost: blocked.test\r\n\r\n".utf8)))
                == .refuse(name: "blocked.test", rule: "blocked.test"))
        for (payload, reason) in [
            ("SSH-2.0-OpenSSH_9.2\r\n", "neither TLS nor HTTP"), ("junk\r\n", "neither TLS nor HTTP"),
            ("GET / HTTP/1.1\r\n\r\n", "its ClientHello or request names no host"),
        ] {
            var inspector = ConnectionInspector()
            #expect(handedOver(&inspector, Self.segment(Array(payload.utf8))) == .refuseUnnamed(reason: reason))
        }
        var speaksFirst = ConnectionInspector()
        #expect(handedOver(&speaksFirst, Self.segment([], ack: 1000, flags: 0x10)) == .pass)
        #expect(handedOver(&speaksFirst, Self.segment([], ack: 1040, flags: 0x10)) == .refuseUnnamed(reason: "the server spoke first"))
        var silent = ConnectionInspector()
        var last = ConnectionInspector.Decision.pass
        for _ in 0..<ConnectionInspector.maxPackets { last = handedOver(&silent, Self.segment([], ack: 1000, flags: 0x10)) }
        #expect(last == .refuseUnnamed(reason: "no name within \(ConnectionInspector.maxPackets) packets"))
        #expect(silent.pendingCount == 0)
    }
}
