import Foundation
import Glibc
import LockCore
import LockPlatform
import TestSupport
import Testing

@testable import LockEnforcement

@Suite struct ExecRulesTests {
    final class Scratch {
        let root: String
        init() throws {
            var template = Array("/tmp/execrules-XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else { throw TestFailure("mkdtemp failed") }
            root = String(cString: template)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
        @discardableResult
        func write(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o755) throws -> String {
            let path = root + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            chmod(path, mode)
            return path
        }
    }

    static let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46] + (0..<60).map { UInt8($0) }

    @Test func resolvesIdentitiesAndNotesWhatIsMissing() throws {
        let scratch = try Scratch()
        let game = try scratch.write("game", Self.elf)
        let script = try scratch.write("game.sh", Array("#!/bin/sh\necho hi\n".utf8))
        symlink(game, scratch.root + "/link")
        let rules = ExecRules.resolve(
            [
                BlockedApp(
                    id: "game", name: "Game", executables: [game, scratch.root + "/link", script, scratch.root + "/gone", "relative"])
            ], hasher: ContentHasher(), userWritable: ["/tmp"])
        #expect(rules.blocked.count == 2)
        let identity = try #require(FileIdentity(path: game))
        #expect(rules.blocked[identity]?.isScript == false)
        #expect(rules.blocked[try #require(FileIdentity(path: script))]?.isScript == true)
        #expect(rules.rules == [ExecRules.Rule(appID: "game", appName: "Game")])
        #expect(rules.notes.contains { $0.contains("/gone not found") })
        #expect(rules.notes.contains { $0.contains("relative is not an absolute path") })
        // Not strict: only the filesystem holding the files is watched, and nothing is hashed.
        #expect(Array(rules.filesystems.keys) == [identity.device])
        #expect(rules.digestsBySize.isEmpty)
    }

    @Test func neverBlocksInterpretersOrLaunchers() throws {
        let paths = ["/bin/sh", "/usr/bin/env"] + (ExecGuardHarness.python.map { [$0] } ?? [])
        let rules = ExecRules.resolve([BlockedApp(id: "bad", executables: paths)], hasher: ContentHasher(), userWritable: [])
        #expect(rules.blocked.isEmpty)
        #expect(rules.isEmpty)
        #expect(rules.notes.count == paths.count)
        #expect(rules.notes.allSatisfy { $0.contains("never blocked") })
    }

    @Test func strictRulesHashAndWatchUserWritableFilesystems() throws {
        let scratch = try Scratch()
        let game = try scratch.write("game", Self.elf)
        let hasher = ContentHasher()
        let rules = ExecRules.resolve(
            [BlockedApp(id: "game", executables: [game], strict: true)], hasher: hasher,
            userWritable: ["/dev/shm", "/proc", "/no/such/dir"])
        let candidates = try #require(rules.digestsBySize[Int64(Self.elf.count)])
        #expect(candidates.count == 1)
        #expect(candidates.first?.key.description.count == 64)
        #expect(rules.matchesContent)
        let shm = try #require(FileIdentity(path: "/dev/shm"))
        #expect(rules.filesystems[shm.device] == "/dev/shm")
        #expect(rules.filesystems.count == Set([FileIdentity(path: game)!.device, shm.device, FileIdentity(path: "/proc")!.device]).count)

        // A copy an ordinary user owns matches by content; a different file of the same size
        // does not, and neither does a copy only root may write (a system binary's twin).
        let copy = try scratch.write("copy", Self.elf)
        chown(copy, 65534, 65534)
        let other = try scratch.write("other", Self.elf.reversed())
        chown(other, 65534, 65534)
        let rootCopy = try scratch.write("root-copy", Self.elf)
        for (path, expected) in [(copy, true), (other, false), (rootCopy, false)] {
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            var status = stat()
            fstat(fd, &status)
            let match = rules.match(identity: FileIdentity(status), status: status, fd: fd, hasher: hasher)
            #expect((match?.byContent == true) == expected, "\(path)")
        }
    }
}

@Suite struct ContentHasherTests {
    @Test func hashesOnceUntilTheFileChanges() throws {
        let scratch = try ExecRulesTests.Scratch()
        let path = try scratch.write("file", Array("abc".utf8), mode: 0o644)
        let hasher = ContentHasher()
        let (digest, key) = try #require(hasher.digest(path: path))
        // SHA-256("abc"), FIPS 180-2 test vector.
        #expect(digest.description == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hasher.cached(key) == digest)
        _ = hasher.digest(path: path)
        #expect(hasher.computations == 1)
        usleep(10_000)
        try Data("abd".utf8).write(to: URL(fileURLWithPath: path))
        let (changed, newKey) = try #require(hasher.digest(path: path))
        #expect(newKey != key)
        #expect(changed != digest)
        #expect(hasher.computations == 2)
    }

    @Test func givesUpAfterTheDeadline() throws {
        let fd = open("/dev/zero", O_RDONLY)
        defer { close(fd) }
        var status = stat()
        fstat(fd, &status)
        // /dev/zero never ends: only the deadline stops the hashing.
        #expect(ContentHasher().digest(fd: fd, key: ContentHasher.Key(status), deadline: .now + .milliseconds(50)) == nil)
    }
}

@Suite struct RunningProcessesTests {
    @Test func findsProcessesByExecutableAndScriptArgument() throws {
        let scratch = try ExecRulesTests.Scratch()
        let copy = scratch.root + "/sleeper"
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: copy)
        let script = try scratch.write("game.sh", Array("sleep 30\n".utf8), mode: 0o644)
        let rules = ExecRules.resolve(
            [BlockedApp(id: "sleeper", executables: [copy]), BlockedApp(id: "script", executables: [script])],
            hasher: ContentHasher(), userWritable: [])
        let running = try ChildProcess(copy, ["30"], environment: [:])
        let interpreted = try ChildProcess("/bin/sh", [script], environment: [:])
        let bystander = try ChildProcess("/bin/sleep", ["30"], environment: [:])
        defer { for child in [running, interpreted, bystander] { child.send(SIGKILL) } }
        try waitUntil("the children run") {
            FileIdentity(path: "/proc/\(running.pid)/exe") == FileIdentity(path: copy)
                && RunningProcesses.arguments(pid: interpreted.pid).last == script
        }
        let matches = RunningProcesses.matching(rules, hasher: ContentHasher())
        #expect(matches.contains { $0.pid == running.pid && $0.rule == 0 })
        #expect(matches.contains { $0.pid == interpreted.pid && $0.rule == 1 })
        #expect(!matches.contains { $0.pid == bystander.pid })
        #expect(RunningProcesses.parent(of: running.pid) == getpid())
    }

    @Test func signalsOnlyTheProcessThatWasFound() throws {
        let child = try ChildProcess("/bin/sleep", ["30"], environment: [:])
        try waitUntil("the child runs") { FileIdentity(path: "/proc/\(child.pid)/exe") == FileIdentity(path: "/bin/sleep") }
        // Expecting another program: the pid is left alone.
        #expect(!ProcessSignaller.signal(child.pid, SIGKILL, expecting: try #require(FileIdentity(path: "/bin/sh"))))
        #expect(child.isRunning)
        #expect(ProcessSignaller.signal(child.pid, SIGTERM, expecting: try #require(FileIdentity(path: "/bin/sleep"))))
        #expect(child.wait(timeout: 5) == 128 + SIGTERM)
    }
}

@Suite struct AppEnforcerIdleTests {
    @Test func startsNothingUntilAnAppIsBlocked() async throws {
        let enforcer = AppEnforcer()
        try await enforcer.apply(.empty)
        try await enforcer.apply(DesiredBlock(domains: ["example.com"]))
        let report = await enforcer.status()
        #expect(report.name == "apps")
        #expect(report.applied)
        #expect(report.elements == 0)
        #expect(report.details["mode"]?.description == "idle")
        #expect(enforcer.statistics == nil)
        #expect(enforcer.isAnswering(within: 0))
    }

    @Test func readsTheCgroupMountFromMountinfo() throws {
        let scratch = try ExecRulesTests.Scratch()
        let path = try scratch.write(
            "mountinfo",
            Array(
                """
                22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw
                30 22 0:26 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate
                31 22 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu

                """.utf8), mode: 0o644)
        #expect(CgroupFreezer.cgroup2Root(mountinfo: path) == "/sys/fs/cgroup/unified")
        let none = try scratch.write("none", Array("22 1 0:21 / /sys rw - sysfs sysfs rw\n".utf8), mode: 0o644)
        #expect(CgroupFreezer.cgroup2Root(mountinfo: none) == nil)
    }
}
