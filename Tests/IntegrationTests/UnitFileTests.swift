import Foundation
import TestSupport
import Testing

/// The units as systemd reads them, with ExecStart= pointing at the built daemon.
@Suite("systemd unit files", .enabled(if: which("systemd-analyze") != nil, "systemd-analyze is not installed"))
struct UnitFileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    static let manDirectory = repository.appendingPathComponent(".build/simplylock-generated/man").path

    /// simplylockd.service (from the template, @sbindir@ → a directory holding the built
    /// daemon) and simplylockd.socket in a fresh directory.
    static func stageUnits() throws -> String {
        let directory = try TestRoot(hosts: "")
        let sbin = directory.path + "/sbin"
        try FileManager.default.createDirectory(atPath: sbin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sbin + "/simplylockd", withDestinationPath: Binaries.daemon)
        let template = try String(contentsOf: repository.appendingPathComponent("systemd/simplylockd.service.in"), encoding: .utf8)
        try template.replacingOccurrences(of: "@sbindir@", with: sbin)
            .write(toFile: directory.path + "/simplylockd.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: repository.appendingPathComponent("systemd/simplylockd.socket").path,
            toPath: directory.path + "/simplylockd.socket")
        staged.append(directory)
        return directory.path
    }

    nonisolated(unsafe) static var staged: [TestRoot] = []

    static func analyze(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> CommandResult {
        try ProcessRunner.run(
            "/bin/sh", ["-c", "cd \"$0\" && exec systemd-analyze \"$@\"", directory] + arguments,
            environment: environment)
    }

    @Test("systemd-analyze verify is clean")
    func verify() throws {
        let directory = try Self.stageUnits()
        let manPage = FileManager.default.fileExists(atPath: Self.manDirectory + "/man1/lockctl.1")
        // With the generated man page, Documentation=man:lockctl(1) is checked too.
        let result = try Self.analyze(
            ["verify"] + (manPage ? [] : ["--man=no"]) + ["simplylockd.service", "simplylockd.socket"],
            in: directory, environment: manPage ? ["MANPATH": Self.manDirectory + ":"] : [:])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    @Test("the notifier's user unit verifies, ExecStart= running lockctl notify")
    func notifierUserUnit() throws {
        let directory = try TestRoot(hosts: "")
        Self.staged.append(directory)
        let bin = directory.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/lockctl", withDestinationPath: Binaries.lockctl)
        let template = try String(
            contentsOf: Self.repository.appendingPathComponent("systemd/simplylock-notify.service.in"), encoding: .utf8)
        let unit = template.replacingOccurrences(of: "@bindir@", with: bin)
        #expect(unit.contains("\nExecStart=\(bin)/lockctl notify\n"))
        try unit.write(toFile: directory.path + "/simplylock-notify.service", atomically: true, encoding: .utf8)
        // A user manager needs a runtime directory of its own.
        let runtime = directory.path + "/xdg"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let manPage = FileManager.default.fileExists(atPath: Self.manDirectory + "/man1/lockctl.1")
        var environment = ["XDG_RUNTIME_DIR": runtime]
        if manPage { environment["MANPATH"] = Self.manDirectory + ":" }
        let result = try Self.analyze(
            ["verify", "--user"] + (manPage ? [] : ["--man=no"]) + ["simplylock-notify.service"], in: directory.path,
            environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    @Test("systemd-analyze security --offline=true rates the service OK or better")
    func security() throws {
        let directory = try Self.stageUnits()
        let text = try Self.analyze(["security", "--offline=true", "--no-pager", "simplylockd.service"], in: directory)
        #expect(text.status == 0)
        // Parse errors (an option in the wrong section) show up here even where verify is silent.
        #expect(text.stderr.isEmpty, "\(text.stderr)")
        let overall = try #require(
            text.stdout.split(separator: "\n").last { $0.contains("Overall exposure level for simplylockd.service:") })
        let words = overall.split(separator: " ")
        let label = try #require(words.firstIndex(of: "simplylockd.service:"))
        let exposure = try #require(Double(words[label + 1]))
        let rating = String(words[label + 2])
        print("systemd-analyze security --offline=true: exposure \(exposure) \(rating)")
        // analyze-security.c counts in tenths: >=10 OK, >=1 SAFE, 0 PERFECT, >=50 MEDIUM.
        #expect(exposure <= 4.9)
        #expect(["OK", "SAFE", "PERFECT"].contains(rating))

        let json = try Self.analyze(["security", "--offline=true", "--json=short", "simplylockd.service"], in: directory)
        let items = try JSONDecoder().decode([SecuritySetting].self, from: Data(json.stdout.utf8))
        let failing = Set(items.filter { $0.set == false }.map(\.name))
        // Each is deliberate (README, "Running under systemd"): root for /etc/hosts,
        // CAP_NET_ADMIN for nftables, the host network for DNS and netlink, /proc/sys for the
        // boot id, world-readable files; for app blocking fanotify (CAP_SYS_ADMIN and its two
        // system calls), everyone's processes (CAP_SYS_PTRACE, CAP_KILL, /proc in full), users'
        // application entries (CAP_DAC_READ_SEARCH, homes read-only) and the cgroup freezer;
        // setpriority from @resources, for libdispatch's worker threads (SyscallFilterTests);
        // adjtimex and clock_adjtime from @clock, the kernel's NTP status read-only (ProtectClock=no,
        // no CAP_SYS_TIME, PrivateDevices=yes).
        #expect(
            failing == [
                "RootDirectory=/RootImage=", "User=/DynamicUser=", "RestrictAddressFamilies=~AF_NETLINK",
                "RestrictAddressFamilies=~AF_UNIX", "RestrictAddressFamilies=~AF_(INET|INET6)",
                "CapabilityBoundingSet=~CAP_NET_ADMIN", "ProcSubset=", "PrivateNetwork=", "PrivateUsers=",
                "IPAddressDeny=", "UMask=", "ProtectClock=", "SystemCallFilter=~@clock",
                "CapabilityBoundingSet=~CAP_SYS_ADMIN", "CapabilityBoundingSet=~CAP_SYS_PTRACE", "CapabilityBoundingSet=~CAP_KILL",
                "CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)", "SystemCallFilter=~@privileged", "ProtectHome=",
                "ProtectProc=", "ProtectControlGroups=", "SystemCallFilter=~@resources",
            ])
    }
}

/// One setting of `systemd-analyze security --json=short`: its name (`ProtectHome=`), and whether
/// the unit sets it as the check wants (null when the check does not apply).
private struct SecuritySetting: Decodable {
    var name: String
    var set: Bool?
}
