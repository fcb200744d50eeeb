import Foundation
import TestSupport
import Testing

@testable import LockEnforcement

/// The name a connection's first bytes ask for: real ClientHellos, made by OpenSSL (Python's
/// ssl module, as a browser's TLS library would send them), and HTTP request heads.
@Suite struct ConnectionNameTests {
    static let python = KernelCheck.which("python3")

    /// A ClientHello as OpenSSL sends it for `name` (no SNI for nil), with `padding` bytes of
    /// ALPN protocols to make it as long as a post-quantum one.
    static func clientHello(_ name: String?, padding: Int = 0) throws -> [UInt8] {
        let script = """
            import ssl, sys
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            if int(sys.argv[2]):
                context.set_alpn_protocols(["h2"] + ["x" * 200] * (int(sys.argv[2]) // 200))
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            connection = context.wrap_bio(incoming, outgoing, server_hostname=sys.argv[1] or None)
            try:
                connection.do_handshake()
            except ssl.SSLWantReadError:
                pass
            sys.stdout.write(outgoing.read().hex())
            """
        let result = try ProcessRunner.run(python!, ["-c", script, name ?? "", String(padding)])
        #expect(result.status == 0, "\(result)")
        let hex = Array(result.stdout.utf8)
        return stride(from: 0, to: hex.count - 1, by: 2).map { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func theServerNameOfARealClientHello() throws {
        let hello = try Self.clientHello("M.Blocked.Test")
        #expect(ConnectionName.parse(hello) == .name("m.blocked.test"))
        // Cut before the name has come in full, it needs more; never another verdict.
        let name = Array("M.Blocked.Test".utf8)
        let nameEnd =
            try #require((0...(hello.count - name.count)).first { hello[$0..<($0 + name.count)].elementsEqual(name) }) + name.count
        for cut in [0, 1, 4, 5, 9, 43, nameEnd - 1] {
            #expect(ConnectionName.parse(hello.prefix(cut)) == .needMore, "cut at \(cut) of \(hello.count)")
        }
        for cut in [nameEnd, hello.count - 1] {
            #expect(ConnectionName.parse(hello.prefix(cut)) == .name("m.blocked.test"), "cut at \(cut) of \(hello.count)")
        }
        #expect(ConnectionName.parse(try Self.clientHello(nil)) == .unnamed)
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func aClientHelloOverSeveralSegmentsAndRecords() throws {
        let hello = try Self.clientHello("allowed.test", padding: 3000)
        #expect(hello.count > 3000)
        #expect(ConnectionName.parse(hello) == .name("allowed.test"))
        #expect([.needMore, .name("allowed.test")].contains(ConnectionName.parse(hello.prefix(1400))))
        // The same handshake split into two records (TLS allows any fragmentation).
        let body = Array(hello[5...])
        let half = body.count / 2
        func record(_ part: ArraySlice<UInt8>) -> [UInt8] { [0x16, 0x03, 0x01, UInt8(part.count >> 8), UInt8(part.count & 0xff)] + part }
        // Records of 40 bytes: the name straddles a record boundary, and a cut inside a header needs more.
        let split = stride(from: 0, to: body.count, by: 40).flatMap { record(body[$0..<min($0 + 40, body.count)]) }
        #expect(ConnectionName.parse(split.prefix(47)) == .needMore)
        #expect(ConnectionName.parse(split.prefix(50)) == .needMore)
        #expect(ConnectionName.parse(split) == .name("allowed.test"))
    }

    @Test func hostsOfPlainHTTPRequests() {
        func parse(_ text: String) -> ConnectionName { ConnectionName.parse(Array(text.utf8)) }
        #expect(parse("GET / HTTP/1.1\r\nUser-Agent: x\r\nHOST:  Old.Blocked.Test:8080 \r\n\r\n") == .name("old.blocked.test"))
        #expect(parse("GET / HTTP/1.1\r\nhost: blocked.test.\r\n") == .name("blocked.test"))
        #expect(parse("GET http://user@m.blocked.test:80/x HTTP/1.1\r\nHost: allowed.test\r\n\r\n") == .name("m.blocked.test"))
        #expect(parse("CONNECT m.blocked.test:443 HTTP/1.1\r\n\r\n") == .name("m.blocked.test"))
        #expect(parse("GET / HTTP/1.1\r\nAccept: */*\r\n") == .needMore)
        #expect(parse("GE") == .needMore)
        #expect(parse("GET / HTTP/1.0\r\n\r\n") == .unnamed)
        #expect(parse("GET / HTTP/1.1\r\nHost: 198.18.0.5\r\n\r\n") == .unnamed)
        #expect(parse("GET / HTTP/1.1\r\nHost: [fd00::5]:80\r\n\r\n") == .unnamed)
        #expect(parse("SSH-2.0-OpenSSH_9.2\r\n") == .other)
        #expect(parse("\u{16}\u{01}") == .other)
        #expect(ConnectionName.parse([UInt8]()) == .needMore)
    }
}
