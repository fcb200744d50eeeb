import Foundation
import LockCore
import Logging
import TestSupport
import Testing

@testable import LockEnforcement

/// `check` and `doctor` say what the hosts file does for a name as glibc reads it now, not
/// what the section lists (issue 24, row 5).
@Suite("the hosts enforcer's claims, against the file as it is")
struct HostsCoverageTests {
    func blocked(user: String, nsswitch: String? = nil) async throws -> (Scratch, HostsFileEnforcer) {
        let scratch = try Scratch()
        try scratch.write("etc/hosts", user)
        if let nsswitch { try scratch.write("etc/nsswitch.conf", nsswitch) }
        let enforcer = HostsFileEnforcer(
            path: scratch.path + "/etc/hosts", logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await enforcer.apply(DesiredBlock(domains: ["a.com", "www.a.com"]))
        return (scratch, enforcer)
    }

    func blocks(_ coverage: Coverage?) -> Bool { if case .blocks = coverage { true } else { false } }

    @Test func aListedNameWithNothingElseInTheWayIsBlocked() async throws {
        let (scratch, enforcer) = try await blocked(user: "127.0.0.1 localhost\n", nsswitch: "hosts: files dns\n")
        #expect(blocks(await enforcer.coverage(of: "a.com")))
        #expect(blocks(await enforcer.coverage(of: "www.a.com.")))
        #expect(await enforcer.diagnose().allSatisfy { $0.severity == .ok })
        #expect(scratch.read("etc/hosts") != nil)
    }

    @Test(arguments: ["203.0.113.7 a.com\n", "203.0.113.7 other a.COM # mine\n"])
    func aUserLineAboveTheSectionIsNoBlock(line: String) async throws {
        let (scratch, enforcer) = try await blocked(user: "127.0.0.1 localhost\n" + line)
        #expect(try #require(scratch.read("etc/hosts")).hasPrefix("127.0.0.1 localhost\n" + line + "# BEGIN simplylock\n"))
        let coverage = await enforcer.coverage(of: "a.com")
        guard case .doesNotCover(let reason) = coverage else {
            Issue.record("a user line mapping a.com to 203.0.113.7 comes first, yet: \(String(describing: coverage))")
            return
        }
        #expect(reason.contains("203.0.113.7"))
        #expect(blocks(await enforcer.coverage(of: "www.a.com")))
        let findings = await enforcer.diagnose()
        #expect(findings.contains { $0.severity == .problem && $0.message.contains("203.0.113.7") }, "\(findings)")
    }

    @Test func aUserLineBelowTheSectionDefeatsItToo() async throws {
        // getaddrinfo returns 0.0.0.0 and the real address; a browser tries the second when the first refuses.
        let (scratch, enforcer) = try await blocked(user: "127.0.0.1 localhost\n")
        let path = scratch.path + "/etc/hosts"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("203.0.113.7 a.com\n".utf8))
        try handle.close()
        #expect(!blocks(await enforcer.coverage(of: "a.com")))
    }

    @Test(arguments: ["hosts: dns files\n", "hosts:\tdns [NOTFOUND=return] files\n", "hosts: dns\n"])
    func dnsBeforeFilesInNsswitchIsNoBlock(nsswitch: String) async throws {
        let (scratch, enforcer) = try await blocked(user: "127.0.0.1 localhost\n", nsswitch: "# comment\npasswd: files\n" + nsswitch)
        defer { #expect(scratch.read("etc/hosts") != nil) }
        let coverage = await enforcer.coverage(of: "a.com")
        guard case .doesNotCover(let reason) = coverage else {
            Issue.record("nsswitch.conf \(nsswitch) puts dns first, yet: \(String(describing: coverage))")
            return
        }
        #expect(reason.contains("nsswitch.conf"))
        #expect(await enforcer.diagnose().contains { $0.severity == .problem })
    }

    @Test(arguments: ["hosts: files mdns4_minimal [NOTFOUND=return] dns\n", "hosts: resolve [!UNAVAIL=return] files myhostname dns\n"])
    func filesOrResolveFirstIsABlock(nsswitch: String) async throws {
        let (scratch, enforcer) = try await blocked(user: "127.0.0.1 localhost\n", nsswitch: nsswitch)
        #expect(blocks(await enforcer.coverage(of: "a.com")))
        #expect(scratch.read("etc/hosts") != nil)
    }
}
