import Foundation
import Glibc
import LockCore
import TestSupport
import Testing

@testable import LockStore

@Suite("Profile files, configuration and SQLite state")
struct StoreTests {
    @Test func shippedProfilesAndCatalogLoadCleanly() throws {
        let scratch = try Scratch()
        var store = ProfileStore(paths: scratch.paths, names: testNames)
        #expect(store.reload().isEmpty)
        for name in ["deep-work", "social", "news", "video", "gaming"] {
            let profile = try #require(store.profile(name))
            #expect(profile.kind == .system)
            #expect(store.rules(for: profile).block.count > 5)
        }
        for service in ["youtube", "reddit", "x", "facebook", "instagram", "tiktok", "netflix", "twitch"] {
            #expect(store.catalog.services[service] != nil)
        }
    }

    @Test func aBadFileIsReportedWithFileLineAndFieldAndTheRestStillLoad() throws {
        let scratch = try Scratch()
        try scratch.write("etc/simplylock/profiles.d/good.toml", "name = \"good\"\ndomains = [\"a.com\"]\n")
        try scratch.write(
            "etc/simplylock/profiles.d/bad.toml",
            """
            name = "bad"
            domains = [
                "ok.com",
                "exa mple.com",
            ]
            """)
        try scratch.write("etc/simplylock/profiles.d/typo.toml", "name = \"typo\"\ndomians = [\"a.com\"]\n")
        try scratch.write("etc/simplylock/profiles.d/syntax.toml", "name = \"syntax\"\ndomains = [\"a.com\"\n")
        try scratch.write("etc/simplylock/profiles.d/renamed.toml", "name = \"other\"\n")
        try scratch.write("etc/simplylock/profiles.d/service.toml", "name = \"service\"\n\nservices = [\"myspace\"]\n")
        try scratch.write(
            "etc/simplylock/profiles.d/nets.toml", "name = \"nets\"\naddresses = [\n  \"192.0.2.0/24\",\n  \"192.0.2.0/33\",\n]\n")
        try scratch.write("etc/simplylock/profiles.d/moded.toml", "name = \"moded\"\nmode = \"denylist\"\n")
        var store = ProfileStore(paths: scratch.paths, names: testNames)
        let problems = store.reload().map(\.description)
        #expect(store.profile("good") != nil)
        #expect(store.profile("bad") == nil)
        let text = problems.joined(separator: "\n")
        #expect(text.contains("profiles.d/bad.toml:4: domains: \"exa mple.com\" is not a valid domain name"), "\(text)")
        #expect(text.contains("profiles.d/typo.toml:2: domians: unknown field"), "\(text)")
        #expect(text.contains("profiles.d/syntax.toml:"), "\(text)")
        #expect(text.contains("profiles.d/renamed.toml:1: name: \"other\" does not match the file name renamed.toml"), "\(text)")
        #expect(text.contains("profiles.d/service.toml:3: services: unknown service \"myspace\""), "\(text)")
        #expect(text.contains("profiles.d/nets.toml:4: addresses: invalid IP address or network \"192.0.2.0/33\""), "\(text)")
        #expect(text.contains("profiles.d/moded.toml:2: mode: \"denylist\" is not a mode (blocklist or allowlist)"), "\(text)")
    }

    @Test func aReloadKeepsTheLastGoodVersionOfABrokenFile() throws {
        let scratch = try Scratch()
        try scratch.write("etc/simplylock/profiles.d/focus.toml", "name = \"focus\"\ndomains = [\"a.com\"]\n")
        var store = ProfileStore(paths: scratch.paths, names: testNames)
        #expect(store.reload().isEmpty)
        try scratch.write("etc/simplylock/profiles.d/focus.toml", "name = \"focus\"\ndomains = [\"a..com\"]\n")
        #expect(store.reload().count == 1)
        #expect(store.profile("focus")?.domains.map(\.value) == ["a.com"])
    }

    @Test func createdProfilesRoundTripThroughTheirFile() throws {
        let scratch = try Scratch()
        var store = ProfileStore(paths: scratch.paths, names: testNames)
        store.reload()
        let profile = Profile(
            name: "focus", displayName: "Fo\"cus", description: "back\\slash, \"quoted\", ünïcode ✓",
            domains: [try DomainName(validatingNormalized: "reddit.com")],
            services: ["youtube"], allow: [try DomainName(validatingNormalized: "music.youtube.com")],
            addresses: [try IPNetwork(parsing: "2001:db8::/32")], strict: true)
        try store.create(profile)
        #expect(throws: ProfileStore.Failure.exists("focus")) { try store.create(profile) }
        #expect(throws: ProfileStore.Failure.system("social")) { try store.delete("social") }
        var fresh = ProfileStore(paths: scratch.paths, names: testNames)
        #expect(fresh.reload().isEmpty)
        #expect(fresh.profile("focus") == profile)
        try fresh.delete("focus")
        #expect(scratch.read("etc/simplylock/profiles.d/focus.toml") == nil)
    }

    @Test func resolversAndEnforcersAreChecked() throws {
        let scratch = try Scratch()
        try scratch.write(
            "c.toml", "enforcers = [\"hosts\", \"nftables\"]\nresolvers = [\"9.9.9.9\", \"[2620:fe::fe]:53\", \"1.1.1.1:5353\"]\n")
        let configuration = try DaemonConfiguration.load(scratch.path + "/c.toml").get()
        #expect(configuration.enforcers == ["hosts", "nftables"])
        #expect(configuration.resolvers.count == 3)
        try scratch.write("c.toml", "resolvers = [\n  \"9.9.9.9\",\n  \"dns.example\",\n]\n")
        #expect { try DaemonConfiguration.load(scratch.path + "/c.toml").get() } throws: {
            ($0 as? FileProblem)?.line == 3 && ($0 as? FileProblem)?.field == "resolvers"
        }
        try scratch.write("c.toml", "enforcers = [\"nftables\"]\n")
        #expect { try DaemonConfiguration.load(scratch.path + "/c.toml").get() } throws: { "\($0)".contains("\"hosts\" is required") }
    }

    @Test func configurationErrorsNameTheField() throws {
        let scratch = try Scratch()
        try scratch.write("c.toml", "log_level = \"loud\"\n")
        #expect { try DaemonConfiguration.load(scratch.path + "/c.toml").get() } throws: {
            ($0 as? FileProblem)?.description == scratch.path
                + "/c.toml:1: log_level: \"loud\" is not a log level (critical, debug, error, info, notice, trace, warning)"
        }
        try scratch.write("c.toml", "\n\ncheckpoint_interval = \"0s\"\n")
        #expect { try DaemonConfiguration.load(scratch.path + "/c.toml").get() } throws: { ($0 as? FileProblem)?.line == 3 }
        #expect(try DaemonConfiguration.load(scratch.path + "/missing.toml").get() == DaemonConfiguration())
    }

    @Test func everyBadKeyIsReportedAndTheValidOnesAreKept() throws {
        let scratch = try Scratch()
        try scratch.write(
            "c.toml",
            """
            max_session = "2h"
            log_level = "loud"
            checkpoint_intervall = "5s"
            schedule_warning = "10m"

            [pomodoro]
            focus = "50m"
            long_break = "30h"
            """)
        let loaded = DaemonConfiguration.load(scratch.path + "/c.toml")
        #expect(loaded.configuration.maxSession == .seconds(7200), "one bad key discarded the rest")
        #expect(loaded.configuration.scheduleWarning == .seconds(600))
        #expect(loaded.configuration.logLevel == "info")
        #expect(loaded.configuration.pomodoro.focus == .seconds(3000))
        #expect(loaded.configuration.pomodoro.longBreak == PomodoroConfig().longBreak)
        let text = loaded.problems.map(\.description).joined(separator: "\n")
        #expect(loaded.problems.count == 3, "\(text)")
        #expect(text.contains("c.toml:2: log_level:"), "\(text)")
        #expect(text.contains("c.toml:3: checkpoint_intervall: unknown field"), "\(text)")
        #expect(text.contains("c.toml:8: pomodoro.long_break: 30h is too long"), "\(text)")
    }

    @Test func profileFilesMustBeRegularFilesOwnedByRootThatNobodyElseMayWrite() throws {
        let scratch = try Scratch()
        let directory = scratch.path + "/etc/simplylock/profiles.d"
        try scratch.write("etc/simplylock/profiles.d/good.toml", "name = \"good\"\ndomains = [\"a.com\"]\n")
        try scratch.write("secret", "root:$6$hash:19000:0:99999:7:::\n")
        chmod(scratch.path + "/secret", 0o600)
        #expect(symlink(scratch.path + "/secret", directory + "/linked.toml") == 0)
        try scratch.write("etc/simplylock/profiles.d/writable.toml", "name = \"writable\"\n")
        chmod(directory + "/writable.toml", 0o666)
        try scratch.write("etc/simplylock/profiles.d/foreign.toml", "name = \"foreign\"\n")
        if getuid() == 0 { chown(directory + "/foreign.toml", 65_534, 65_534) }
        var store = ProfileStore(paths: scratch.paths, names: testNames)
        let problems = store.reload().map(\.description).joined(separator: "\n")
        #expect(store.profile("good") != nil)
        #expect(store.profile("linked") == nil && store.profile("writable") == nil)
        #expect(problems.contains("linked.toml: is a symbolic link"), "\(problems)")
        #expect(problems.contains("writable.toml: may be written by group or others"), "\(problems)")
        #expect(!problems.contains("$6$"), "the content of a file that was refused was echoed")
        if getuid() == 0 {
            #expect(store.profile("foreign") == nil)
            #expect(problems.contains("foreign.toml: is owned by uid 65534"), "\(problems)")
        }
    }

    @Test func stateSurvivesReopening() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/state.sqlite"
        let now = ClockReading(wall: Date(timeIntervalSince1970: 1_800_000_000), boot: BootTime(seconds: 10), bootID: "b")
        let session = Session(
            id: "abc", profile: "news", origin: .schedule("mornings"), strict: true,
            rules: BlockRules(block: DomainSet(["a.com"])), duration: .seconds(60), now: now)
        do {
            let store = try StateStore(path: path)
            try store.commit(SessionChange(started: [session]), at: now)
            try store.setValue(["k": 1], forKey: "test")
        }
        let reopened = try StateStore(path: path)
        #expect(try reopened.activeSessions() == [session])
        #expect(try reopened.value([String: Int].self, forKey: "test") == ["k": 1])
        try reopened.commit(SessionChange(ended: [.init(session: session, reason: .stopped, at: now.wall)]), at: now)
        #expect(try reopened.activeSessions().isEmpty)
        let entry = try #require(try reopened.history(limit: 5).first)
        #expect(entry.origin == "schedule:mornings" && entry.endReason == .stopped && entry.strict)
    }
}
