import Foundation
import LockCore
import LockEnforcement
import LockNames
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// The judgements status and doctor share, the fixes doctor gives, and `--check-config`.
@Suite("Reporting: enforcer health, doctor's fixes, configuration check")
struct ReportingTests {
    @Test func anEnforcerWhoseNamesAllFailedIsNotOK() {
        func status(names: Int, failing: Int) -> EnforcerStatus {
            EnforcerStatus(
                name: "nftables", applied: true, elements: 0, lastApplied: Date(), lastError: nil,
                details: ["names": .count(names), "namesFailing": .count(failing)])
        }
        #expect(status(names: 12, failing: 12).health.word == "problem")
        #expect(status(names: 12, failing: 12).health.reason?.contains("none of the 12 names resolved") == true)
        #expect(status(names: 12, failing: 3).health == .ok)
        #expect(status(names: 0, failing: 0).health == .ok)
        let failing = EnforcerStatus(name: "hosts", applied: false, elements: 0, lastApplied: nil, lastError: "read-only file system")
        #expect(failing.health == .problem("read-only file system"))
        let idle = EnforcerStatus(name: "hosts", applied: false, elements: 0, lastApplied: nil, lastError: nil)
        #expect(idle.health == .idle)
    }

    func diagnostics(_ scratch: Scratch, statuses: [EnforcerStatus] = [], launch: DaemonLaunch) -> [Finding] {
        Diagnostics(
            paths: scratch.paths, statuses: statuses, configuredEnforcers: ["hosts"], fileProblems: ["schedules.d/x.toml:2: profile: bad"],
            scopes: [], importedLists: 0, missingLists: [:], firewallUnavailable: nil, stateReadOnly: nil, now: ManualClock().now(),
            launch: launch
        ).run()
    }

    @Test func doctorsFixesFitTheWayTheDaemonWasStarted() throws {
        let scratch = try Scratch()
        let allFailing = EnforcerStatus(
            name: "nftables", applied: true, elements: 0, lastApplied: Date(), lastError: nil,
            details: ["names": .count(2), "namesFailing": .count(2)])
        // By hand under a scratch root, without a configuration file.
        let byHand = diagnostics(scratch, statuses: [allFailing], launch: DaemonLaunch(root: scratch.path))
        let enforcer = try #require(byHand.first { $0.subject == "enforcer nftables" })
        #expect(enforcer.severity == .problem)
        #expect(enforcer.fix?.contains("standard error") == true && enforcer.fix?.contains("journalctl") == false)
        let firewall = try #require(byHand.first { $0.subject == "nftables" })
        #expect(firewall.fix?.contains("create \(scratch.paths.configFile)") == true)
        let configuration = try #require(byHand.first { $0.subject == "configuration" })
        #expect(configuration.message == "schedules.d/x.toml:2: profile: bad")
        #expect(configuration.severity == .problem)
        #expect(configuration.fix == Finding.fixFile(lockctl: "lockctl --root \(scratch.path)"))
        #expect(configuration.fix?.hasSuffix("then `lockctl --root \(scratch.path) reload`") == true)
        // By systemd, with --enforcers.
        let bySystemd = diagnostics(scratch, statuses: [allFailing], launch: DaemonLaunch(bySystemd: true, enforcersOverride: ["hosts"]))
        #expect(bySystemd.first { $0.subject == "enforcer nftables" }?.fix?.contains("journalctl -u simplylockd") == true)
        #expect(bySystemd.first { $0.subject == "nftables" }?.fix == "start simplylockd with --enforcers hosts,nftables")
        // With a configuration file to edit.
        try scratch.write("etc/simplylock/simplylockd.toml", "enforcers = [\"hosts\"]\n")
        let withFile = diagnostics(scratch, launch: DaemonLaunch(bySystemd: true))
        #expect(
            withFile.first { $0.subject == "nftables" }?.fix
                == "add \"nftables\" to enforcers in \(scratch.paths.configFile), then `systemctl restart simplylockd`")
    }

    @Test func checkConfigReportsEveryProblemOfEveryFile() throws {
        let scratch = try Scratch()
        try scratch.write("etc/simplylock/simplylockd.toml", "enforcers = [\"hosts\", \"bogus\"]\nmax_session = \"forever\"\n")
        try scratch.write(
            "etc/simplylock/profiles.d/bad.toml",
            """
            name = "bad"
            domains = ["ok.com", "bad..com", "also bad"]
            services = ["youtube", "nope"]
            strict = "yes"
            """)
        try scratch.write(
            "etc/simplylock/schedules.d/s1.toml",
            """
            name = "s1"
            profile = "ghost"
            days = "mon"
            from = "25:00"
            to = "10:00"
            warn = "forever"
            """)
        try scratch.write("etc/simplylock/schedules.d/good.toml", "name = \"good\"\nprofile = \"news\"\non = \"daily\"\nfor = \"1h\"\n")
        let report = ConfigurationCheck(paths: scratch.paths, names: testNames).run()
        let lines = report.problems.map(\.description)
        for expected in [
            "simplylockd.toml:1: enforcers:", "simplylockd.toml:2: max_session:", "bad.toml:2: domains: \"bad..com\"",
            "bad.toml:2: domains: \"also bad\"", "bad.toml:3: services: unknown service \"nope\"", "bad.toml:4: strict:",
            "s1.toml:2: profile: no profile named \"ghost\"", "s1.toml:4: from:", "s1.toml:6: warn:",
        ] {
            #expect(lines.contains { $0.contains(expected) }, "missing \(expected) in \(lines)")
        }
        #expect(!lines.contains { $0.contains("good.toml") })
        #expect(report.files.first { $0.kind == "schedule" }?.count == 2)
        // Each problem once.
        #expect(Set(lines).count == lines.count)
    }
}
