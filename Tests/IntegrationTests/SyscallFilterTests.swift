import Foundation
import Glibc
import TestSupport
import Testing

/// The unit's system call filter against what the daemon really calls: every call of the groups
/// the unit takes away (`~@privileged @resources`) that the daemon makes while it starts, serves
/// and blocks must be one the unit gives back by name. libdispatch's `setpriority` for each
/// worker thread was taken away, and each start logged "Failed to set thread priority for worker
/// thread … errno=1".
@Suite("simplylockd's system calls against its unit's filter", .serialized)
struct SyscallFilterTests {
    static let missing = TestTools.missing {
        if TestTools.which("strace") == nil { return "strace is not installed (apt-get install strace)" }
        return TestTools.which("systemd-analyze") == nil ? "systemd-analyze is not installed" : nil
    }

    /// The calls of `groups` (nested groups expanded), as systemd-analyze lists them.
    static func calls(of groups: [String]) throws -> Set<String> {
        var seen = Set<String>()
        var pending = groups
        var calls = Set<String>()
        while let group = pending.popLast() {
            guard seen.insert(group).inserted else { continue }
            let result = try ProcessRunner.run(TestTools.which("systemd-analyze") ?? "systemd-analyze", ["syscall-filter", group])
            guard result.status == 0 else { throw TestFailure("systemd-analyze syscall-filter \(group): \(result.stderr)") }
            for line in result.stdout.split(separator: "\n").dropFirst() {
                let word = line.trimmingCharacters(in: .whitespaces)
                if word.isEmpty || word.hasPrefix("#") { continue }
                if word.hasPrefix("@") { pending.append(word) } else { calls.insert(word) }
            }
        }
        return calls
    }

    /// The unit's `SystemCallFilter=` lines: the groups taken away and the calls given back by name.
    static func unitFilter() throws -> (denied: [String], allowed: Set<String>) {
        let unit = try String(contentsOfFile: TestTools.repository + "/systemd/simplylockd.service.in", encoding: .utf8)
        var denied: [String] = []
        var allowed = Set<String>()
        for line in unit.split(separator: "\n") where line.hasPrefix("SystemCallFilter=") {
            let value = line.dropFirst("SystemCallFilter=".count)
            if value.hasPrefix("~") {
                denied += value.dropFirst().split(separator: " ").map(String.init)
            } else {
                allowed.formUnion(value.split(separator: " ").map(String.init).filter { !$0.hasPrefix("@") })
            }
        }
        return (denied, allowed)
    }

    /// Filtered calls the daemon makes that the unit leaves filtered, and why that is right.
    static let knownFiltered: [String: String] = [
        "fchown": "AtomicFile gives a rewritten root-owned file its owner again; EPERM leaves root's"
    ]

    /// The lowest nice value `LimitNICE=` lets the daemon set without CAP_SYS_NICE (0 without one).
    static func niceFloor() throws -> Int {
        let unit = try String(contentsOfFile: TestTools.repository + "/systemd/simplylockd.service.in", encoding: .utf8)
        guard let line = unit.split(separator: "\n").first(where: { $0.hasPrefix("LimitNICE=") }) else { return 0 }
        let value = line.dropFirst("LimitNICE=".count)
        // "-4" or "+3" is a nice value; a bare number is the raw limit (20 - nice).
        if value.hasPrefix("-") || value.hasPrefix("+") { return Int(value) ?? 0 }
        return 20 - (Int(value) ?? 20)
    }

    @Test(
        "every filtered call the daemon makes is allowed back or known; its nice values are within LimitNICE",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func filteredCallsAreAllowedBack() throws {
        let (deniedGroups, allowed) = try Self.unitFilter()
        #expect(deniedGroups.contains("@resources") && deniedGroups.contains("@privileged"), "\(deniedGroups)")
        let denied = try Self.calls(of: deniedGroups)
        #expect(denied.contains("setpriority"), "systemd-analyze no longer puts setpriority in the denied groups")
        let floor = try Self.niceFloor()

        let root = try TestRoot()
        let trace = root.path + "/strace.out"
        // `?`: names this strace does not know (other architectures' calls) are skipped.
        let daemon = try DaemonProcess(
            root: root,
            wrapper: [
                TestTools.which("strace") ?? "strace", "-f", "-qq", "-o", trace, "-e",
                "trace=" + denied.sorted().map { "?" + $0 }.joined(separator: ","),
            ])
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        #expect(try daemon.lockctl("status").status == 0)
        #expect(try daemon.lockctl("extend", "news", "5m").status == 0)
        #expect(try daemon.lockctl("stop", "news").status == 0)
        // SIGTERM to the daemon, not to strace (which would detach and leave it running).
        let children = (try? String(contentsOfFile: "/proc/\(daemon.pid)/task/\(daemon.pid)/children", encoding: .utf8)) ?? ""
        let traced = try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "strace started no daemon")
        kill(traced, SIGTERM)
        #expect(daemon.process.wait(timeout: 15) != nil, "simplylockd did not stop under strace")

        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        var made = Set<String>()
        var nices: [Int] = []
        for line in lines {
            // "1234  setpriority(PRIO_PROCESS, 0, -4) = 0"
            let fields = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard fields.count == 2, let open = fields[1].firstIndex(of: "(") else { continue }
            let name = String(fields[1][..<open])
            guard denied.contains(name) else { continue }
            made.insert(name)
            if name == "setpriority", let close = fields[1].firstIndex(of: ")") {
                let arguments = fields[1][fields[1].index(after: open)..<close]
                if let nice = arguments.split(separator: ",").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                    nices.append(nice)
                }
            }
        }
        print("filtered calls the daemon made: \(made.sorted().joined(separator: ", ")); nice values asked for: \(nices)")
        // libdispatch sets a worker's nice value only when it starts a thread of another priority
        // class, which a short run may not do; when it does, the unit must let it.
        #expect(!lines.isEmpty, "strace saw nothing")
        #expect(allowed.contains("setpriority"))
        // Below the floor, setpriority fails with EACCES (no CAP_SYS_NICE) and libdispatch logs it.
        #expect(nices.allSatisfy { $0 >= floor }, "nice values \(nices) below LimitNICE's \(floor)")
        let unexplained = made.subtracting(allowed).subtracting(Self.knownFiltered.keys)
        #expect(unexplained.isEmpty, "the unit filters calls the daemon makes: \(unexplained.sorted()) (\(lines.count) traced calls)")
    }

    /// Raising RLIMIT_NICE needs CAP_SYS_RESOURCE, which systemd has and some containers do not.
    static let rlimitMissing = TestTools.missing {
        TestTools.which("prlimit") == nil || TestTools.which("setpriv") == nil ? "prlimit or setpriv is missing" : nil
    }
    /// A sandbox that keeps root from raising RLIMIT_NICE is no missing tool: skipped in CI too.
    static let rlimitUnsupported = TestTools.unsupported {
        guard rlimitMissing == nil, let prlimit = TestTools.which("prlimit") else { return nil }
        let raw = "\(20 - ((try? niceFloor()) ?? 0))"
        guard let probe = try? ProcessRunner.run(prlimit, ["--nice=\(raw)", "true"]), probe.status == 0 else {
            return "RLIMIT_NICE cannot be raised here (no CAP_SYS_RESOURCE)"
        }
        return nil
    }

    @Test(
        "without CAP_SYS_NICE and with the unit's LimitNICE, libdispatch logs no failed thread priority",
        .enabled(if: rlimitMissing == nil, "\(rlimitMissing ?? "")"),
        .enabled(if: rlimitUnsupported == nil, "\(rlimitUnsupported ?? "")"))
    func threadPrioritiesNeedNoCapability() throws {
        let raw = "\(20 - (try Self.niceFloor()))"
        let root = try TestRoot()
        let daemon = try DaemonProcess(
            root: root, environment: ["LIBDISPATCH_LOG": "stderr"],
            wrapper: [
                TestTools.which("prlimit") ?? "prlimit", "--nice=\(raw)", TestTools.which("setpriv") ?? "setpriv",
                "--bounding-set", "-sys_nice",
            ])
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        #expect(try daemon.lockctl("stop", "news").status == 0)
        #expect(!daemon.log().contains("Failed to set thread priority"), "\(daemon.log().suffix(2000))")
    }

    @Test("the unit lets a watchdog abort leave a core dump")
    func watchdogAbortLeavesACore() throws {
        let unit = try String(contentsOfFile: TestTools.repository + "/systemd/simplylockd.service.in", encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init)
        #expect(lines.contains("WatchdogSec=30s"))
        // systemd's default for services is DefaultLimitCORE=0:infinity: no core unless the unit raises it.
        #expect(lines.contains("LimitCORE=infinity"))
        // SIGABRT is the watchdog's default signal; a WatchdogSignal= that dumps no core would break the comment's promise.
        #expect(!lines.contains { $0.hasPrefix("WatchdogSignal=") && !$0.hasSuffix("SIGABRT") })
    }
}
