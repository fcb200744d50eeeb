import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockPlatform
import Logging
import Testing

@Suite("HostsFileEnforcer on real files")
struct HostsFileEnforcerTests {
    @Test func appliesAtomicallyAndKeepsOwnerAndMode() async throws {
        let scratch = try Scratch()
        try scratch.write("etc/hosts", "127.0.0.1 localhost\n")
        chmod(scratch.path + "/etc/hosts", 0o640)
        let enforcer = HostsFileEnforcer(path: scratch.path + "/etc/hosts", alwaysWithBlock: ["use-application-dns.net"],
                                         logger: Logger(label: "test"))
        try await enforcer.apply(DesiredBlock(domains: ["a.com", "www.a.com"]))
        let text = try #require(scratch.read("etc/hosts"))
        #expect(text.contains("0.0.0.0 a.com www.a.com use-application-dns.net"))
        var info = stat()
        stat(scratch.path + "/etc/hosts", &info)
        #expect(info.st_mode & 0o777 == 0o640)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/etc").filter { $0 != "hosts" }
        #expect(leftovers.isEmpty)
        try await enforcer.apply(.empty)
        #expect(scratch.read("etc/hosts") == "127.0.0.1 localhost\n")
        #expect(await enforcer.status().applied)
    }

    @Test func unwritableDirectoryIsAnErrorNotADamagedFile() async throws {
        // Not even root can create a file below /dev/null.
        let enforcer = HostsFileEnforcer(path: "/dev/null/hosts", logger: Logger(label: "test"))
        await #expect(throws: SystemError.self) { try await enforcer.apply(DesiredBlock(domains: ["a.com"])) }
        let report = await enforcer.status()
        #expect(!report.applied)
        #expect(report.lastError?.contains("/dev/null") == true)
    }
}
