import CLinux
import Foundation
import Glibc
import LockCore
import LockPlatform
import Synchronization
import TestSupport
import Testing

@testable import LockEnforcement

/// Counted apps in the exec guard: their programs in the rules, who runs them (a /proc of the
/// test's own), and the launch gate's answers: at once within a running app, the daemon's
/// decision for a launch, the rule for undecided ones (refused if strict, else allowed), always
/// within the deadline.
@Suite struct LaunchGateTests {
    final class Scratch {
        let root: String
        init() throws {
            var template = Array("/tmp/launchgate-XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else { throw TestFailure("mkdtemp failed") }
            root = String(cString: template)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        @discardableResult
        func write(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o755) throws -> String {
            let path = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            chmod(path, mode)
            return path
        }

        /// A process in the fake /proc: its executable and its real uid.
        func process(_ pid: Int32, exe: String, uid: UInt32) throws {
            try write("proc/\(pid)/status", Array("Name:\tx\nUmask:\t0022\nUid:\t\(uid)\t\(uid)\t\(uid)\t\(uid)\n".utf8), mode: 0o644)
            symlink(exe, root + "/proc/\(pid)/exe")
        }
    }

    static let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46] + (0..<60).map { UInt8($0) }

    @Test func countedProgramsAreWatchedUnlessBlocked() throws {
        let scratch = try Scratch()
        let game = try scratch.write("game", Self.elf)
        let helper = try scratch.write("helper", Self.elf + [1])
        let blocked = try scratch.write("blocked", Self.elf + [2])
        let rules = ExecRules.resolve(
            [BlockedApp(id: "other", executables: [blocked])],
            counted: [
                CountedApp(id: "game", executables: [game, helper, blocked, scratch.root + "/gone"], allowances: ["play"], strict: false)
            ], hasher: ContentHasher(), userWritable: [])
        let ids = try [game, helper, blocked].map { try #require(FileIdentity(path: $0)) }
        #expect(rules.counted == [ids[0]: 0, ids[1]: 0], "a blocked program is refused, never counted")
        #expect(rules.countedIdentities(0) == [ids[0], ids[1]])
        #expect(rules.countsLaunches && rules.filesystems[ids[0].device] != nil)
        #expect(rules.notes.contains { $0.contains("gone not found; its launches are not counted") })
        // Counting another app, or none, decides differently: the allow cache must be flushed.
        let plain = ExecRules.resolve([BlockedApp(id: "other", executables: [blocked])], hasher: ContentHasher(), userWritable: [])
        #expect(!rules.decidesLike(plain))
        #expect(!plain.countsLaunches)
    }

    @Test func theScanFindsWhoRunsTheAppByIdentityAndRealUID() throws {
        let scratch = try Scratch()
        let game = try scratch.write("game", Self.elf)
        let other = try scratch.write("other", Self.elf + [1])
        try scratch.process(100, exe: game, uid: 1000)
        try scratch.process(101, exe: other, uid: 1001)
        try scratch.process(102, exe: game, uid: 0)
        try scratch.write("proc/self/status", Array("Uid:\t5\n".utf8))
        let proc = scratch.root + "/proc"
        let identities: Set = [try #require(FileIdentity(path: game))]
        #expect(LaunchScan.users(running: identities, proc: proc) == [1000, 0])
        #expect(LaunchScan.uid(of: 101, proc: proc) == 1001)
        // uid 1001 runs no instance: its exec is a launch; uid 1000's is not.
        #expect(LaunchScan.isLaunch(pid: 101, identities: identities, proc: proc))
        #expect(!LaunchScan.isLaunch(pid: 100, identities: identities, proc: proc))
        #expect(LaunchScan.runs(100, identities, proc: proc) && !LaunchScan.runs(101, identities, proc: proc))
    }

    /// A gate over a fake /proc whose `onLaunch` acts by app id; every answer is recorded.
    final class Record: Sendable {
        let answers = Mutex<[Int32: Bool]>([:])
        let refusals = Mutex<[OpenRefusal]>([])
        let requests = Mutex<[LaunchRequest]>([])
    }

    final class Harness: Sendable {
        let stopFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let record = Record()
        let gate: LaunchGate
        let done = DispatchGroup()
        let numbers = Atomic<Int32>(700)

        init(proc: String) {
            let record = self.record
            gate = LaunchGate(
                stopFD: stopFD, proc: proc,
                onLaunch: { request in
                    record.requests.withLock { $0.append(request) }
                    switch request.app.id {
                    case "allowed":
                        if request.claim() { request.decide(.allowed) }
                    case "refused":
                        if request.claim() {
                            request.decide(
                                .refused(OpenRefusal(allowance: "play", profile: "games", reason: .noOpensLeft, until: Date())))
                        }
                    default: break  // never decided
                    }
                },
                respond: { fd, allow in record.answers.withLock { $0[fd] = allow } },
                refused: { _, _, _, refusal in record.refusals.withLock { $0.append(refusal) } })
            done.enter()
            let gate = self.gate
            let group = done
            Thread {
                gate.run()
                group.leave()
            }.start()
        }

        /// A stand-in for a permission event's descriptor (the gate closes it).
        func event(_ app: String, strict: Bool = false, pid: Int32, identities: Set<FileIdentity>) -> Int32 {
            // A number above every earlier one (the gate closes each, and a reused number would
            // find the earlier event's answer).
            let raw = eventfd(0, Int32(EFD_CLOEXEC))
            let fd = fcntl(raw, F_DUPFD_CLOEXEC, numbers.load(ordering: .relaxed) + 1)
            numbers.store(fd, ordering: .relaxed)
            close(raw)
            gate.submit(
                fd: fd, pid: pid, app: CountedApp(id: app, executables: [], allowances: ["play"], strict: strict), identities: identities)
            return fd
        }

        func answer(_ fd: Int32, within seconds: Double) -> Bool? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let answer = record.answers.withLock({ $0[fd] }) { return answer }
                usleep(5_000)
            }
            return nil
        }

        func stop() {
            var one: UInt64 = 1
            _ = write(stopFD, &one, 8)
            _ = done.wait(timeout: .now() + 5)
            close(stopFD)
        }
    }

    @Test func withinARunningAppAtOnceALaunchByTheDaemonUndecidedByTheRule() throws {
        let scratch = try Scratch()
        let game = try scratch.write("game", Self.elf)
        let shell = try scratch.write("shell", Self.elf + [1])
        try scratch.process(100, exe: game, uid: 1000)
        try scratch.process(101, exe: shell, uid: 1000)
        try scratch.process(200, exe: shell, uid: 1001)
        let identities: Set = [try #require(FileIdentity(path: game))]
        let harness = Harness(proc: scratch.root + "/proc")
        defer { harness.stop() }

        // uid 1000 runs the game already: allowed at once, never asked, counted as within.
        let within = harness.event("refused", pid: 101, identities: identities)
        #expect(harness.answer(within, within: 0.5) == true)
        #expect(harness.record.requests.withLock(\.count) == 0)
        // uid 1001 does not: a launch, the daemon's decision.
        let allowed = harness.event("allowed", pid: 200, identities: identities)
        #expect(harness.answer(allowed, within: 0.5) == true)
        #expect(harness.record.requests.withLock { $0.last?.uid } == 1001)
        let refused = harness.event("refused", pid: 200, identities: identities)
        #expect(harness.answer(refused, within: 0.5) == false)
        #expect(harness.record.refusals.withLock { $0.map(\.reason) } == [.noOpensLeft])
        // Undecided: allowed once the deadline passes (refused when a strict allowance counts it).
        let started = ContinuousClock.now
        let lax = harness.event("silent", pid: 200, identities: identities)
        let strict = harness.event("silent", strict: true, pid: 200, identities: identities)
        #expect(harness.answer(lax, within: 5) == true)
        #expect(harness.answer(strict, within: 5) == false)
        let waited = started.duration(to: .now)
        #expect(waited >= LaunchGate.deadline && waited < LaunchGate.deadline + .milliseconds(1500), "\(waited)")
        // Too late to count it now: the daemon's claim fails.
        let late = try #require(harness.record.requests.withLock { $0.last })
        #expect(!late.claim())
        let counts = harness.gate.statistics
        #expect(counts == LaunchGate.Counts(allowed: 1, refused: 1, within: 1, undecided: 2))
    }

    @Test func stoppingAllowsWhatStillWaits() throws {
        let scratch = try Scratch()
        let shell = try scratch.write("shell", Self.elf)
        try scratch.process(200, exe: shell, uid: 1001)
        let harness = Harness(proc: scratch.root + "/proc")
        let waiting = harness.event("silent", strict: true, pid: 200, identities: [])
        while harness.record.requests.withLock(\.isEmpty) { usleep(5_000) }
        harness.stop()
        // As when the group closes: nothing waits for a guard that stopped.
        #expect(harness.record.answers.withLock { $0[waiting] } == true)
    }
}
