import Foundation
import LockCore
import Testing

/// A reading `seconds` into boot `boot`, with the wall clock at `wall` seconds since 2026-01-01.
func reading(boot: Double, wall: Double, bootID: String = "boot-1") -> ClockReading {
    ClockReading(wall: Date(timeIntervalSince1970: 1_767_225_600 + wall), boot: BootTime(seconds: boot), bootID: bootID)
}

func session(
    _ id: String, profile: String = "p", minutes: Double, at now: ClockReading, strict: Bool = false,
    domains: [String] = ["example.com"], origin: SessionOrigin = .manual
) -> Session {
    Session(
        id: id, profile: profile, origin: origin, strict: strict, rules: BlockRules(block: DomainSet(domains)),
        duration: .seconds(minutes * 60), now: now)
}

@Suite struct SessionTests {
    @Test func strictnessChangesWhatIsBlockedOnlyForSessionsWithApps() {
        let now = reading(boot: 100, wall: 0)
        let sites = session("a", minutes: 45, at: now)
        var stricter = sites
        stricter.strict = true
        #expect(!SessionChange(updated: [.init(old: sites, new: stricter)]).changesRules)
        var withApps = sites
        withApps.rules.apps = [BlockedApp(id: "steam", executables: ["/usr/games/steam"])]
        var strictApps = withApps
        strictApps.strict = true
        // A strict block also refuses copies of the app's programs: the enforcers must hear of it.
        #expect(SessionChange(updated: [.init(old: withApps, new: strictApps)]).changesRules)
        #expect(SessionSet([strictApps]).desiredBlock.apps.allSatisfy { $0.strict })
    }

    @Test func remainingCountsOnTheBootClockNotTheWallClock() {
        let start = reading(boot: 100, wall: 0)
        let s = session("a", minutes: 45, at: start)
        #expect(s.remaining(at: reading(boot: 100 + 600, wall: 600)) == .seconds(2100))
        // The wall clock jumps a day ahead: nothing changes.
        #expect(s.remaining(at: reading(boot: 100 + 600, wall: 600 + 86_400)) == .seconds(2100))
        // ... or back.
        #expect(s.remaining(at: reading(boot: 100 + 600, wall: -86_400)) == .seconds(2100))
        #expect(!s.hasEnded(at: reading(boot: 100 + 2699, wall: 0)))
        #expect(s.hasEnded(at: reading(boot: 100 + 2700, wall: 0)))
        #expect(s.remaining(at: reading(boot: 100 + 9999, wall: 0)) == .zero)
    }

    @Test func endsAtMovesWithTheWallClockButTheBlockDoesNot() {
        let s = session("a", minutes: 10, at: reading(boot: 0, wall: 0))
        let later = reading(boot: 60, wall: 60 + 3600)
        #expect(s.endsAt(at: later) == later.wall.addingTimeInterval(540))
    }

    @Test func rebootUsesTheCheckpointMinusWallTimeOff() {
        let start = reading(boot: 50, wall: 0)
        var s = session("a", minutes: 60, at: start)
        s = s.checkpointed(at: reading(boot: 50 + 600, wall: 600))  // 50 min left at wall 600
        // Rebooted; 20 minutes of wall time passed while off.
        let afterReboot = reading(boot: 5, wall: 600 + 1200, bootID: "boot-2")
        #expect(s.remaining(at: afterReboot) == .seconds(1800))
        let resumed = s.resumed(at: afterReboot)
        #expect(resumed.bootID == "boot-2")
        #expect(resumed.remaining(at: reading(boot: 5 + 60, wall: 1860, bootID: "boot-2")) == .seconds(1740))
    }

    @Test func rebootWithTheClockMovedBackNeverAddsTime() {
        var s = session("a", minutes: 60, at: reading(boot: 0, wall: 1000))
        s = s.checkpointed(at: reading(boot: 600, wall: 1600))
        let clockBack = reading(boot: 1, wall: 0, bootID: "boot-2")
        #expect(s.remaining(at: clockBack) == .seconds(3000))
    }

    @Test func rebootAfterMoreTimeThanWasLeftEndsIt() {
        var s = session("a", minutes: 10, at: reading(boot: 0, wall: 0))
        s = s.checkpointed(at: reading(boot: 300, wall: 300))
        let muchLater = reading(boot: 1, wall: 300 + 86_400, bootID: "boot-2")
        #expect(s.remaining(at: muchLater) == .zero)
        #expect(s.hasEnded(at: muchLater))
    }

    @Test func extendingLengthens() {
        let now = reading(boot: 0, wall: 0)
        let s = session("a", minutes: 10, at: now).extended(by: .seconds(300), at: reading(boot: 60, wall: 60))
        #expect(s.remaining(at: reading(boot: 60, wall: 60)) == .seconds(840))
        #expect(s.checkpointRemaining == .seconds(840))
    }

    @Test func originsRoundTrip() throws {
        for origin in [SessionOrigin.manual, .pomodoro, .schedule("mornings")] {
            #expect(SessionOrigin(rawValue: origin.rawValue) == origin)
        }
        #expect(SessionOrigin(rawValue: "schedule:") == nil)
        #expect(SessionOrigin(rawValue: "robot") == nil)
        let data = try JSONEncoder().encode(session("a", minutes: 1, at: reading(boot: 0, wall: 0), origin: .schedule("x")))
        #expect(try JSONDecoder().decode(Session.self, from: data).origin == .schedule("x"))
    }
}

@Suite struct SessionSetTests {
    @Test func unionDeadlinesAndMatching() {
        let now = reading(boot: 0, wall: 0)
        var set = SessionSet()
        set.insert(session("a", profile: "focus", minutes: 30, at: now, domains: ["reddit.com", "x.com"]))
        set.insert(session("b", profile: "video", minutes: 10, at: now, domains: ["youtube.com", "x.com"]))
        #expect(set.desiredBlock.domains == ["reddit.com", "www.reddit.com", "www.x.com", "www.youtube.com", "x.com", "youtube.com"])
        #expect(set.nextDeadline == BootTime(seconds: 600))
        #expect(set.sessions(matching: "focus").map(\.id) == ["a"])
        #expect(set.sessions(matching: "b").map(\.id) == ["b"])
        #expect(set.sessions(matching: "nothing").isEmpty)
        #expect(set.blockers(of: "old.x.com").map(\.session.id) == ["a", "b"])
        #expect(set.blockers(of: "www.reddit.com").map(\.rule) == ["reddit.com"])
        #expect(set.ended(at: reading(boot: 600, wall: 600)).map(\.id) == ["b"])
        set.remove(id: "b")
        #expect(set.nextDeadline == BootTime(seconds: 1800))
        #expect(!set.desiredBlock.domains.contains("youtube.com"))
        #expect(set.desiredBlock.domains.contains("x.com"))
        set.remove(id: "a")
        #expect(set.desiredBlock == .empty)
        #expect(set.nextDeadline == nil)
    }

    @Test func sameProfileFromTwoOriginsCoexists() {
        let now = reading(boot: 0, wall: 0)
        var set = SessionSet()
        set.insert(session("a", profile: "focus", minutes: 30, at: now))
        set.insert(session("b", profile: "focus", minutes: 30, at: now, origin: .schedule("mornings")))
        #expect(set.sessions(matching: "focus").count == 2)
        #expect(set.desiredBlock.domains == ["example.com", "www.example.com"])
    }
}

@Suite struct AddressesAndAllowlistTests {
    func rules(_ domains: [String], addresses: [String] = [], mode: ProfileMode = .blocklist) throws -> BlockRules {
        BlockRules(block: DomainSet(domains), addresses: try addresses.map { try IPNetwork(parsing: $0) }, mode: mode)
    }

    func session(_ id: String, _ rules: BlockRules) -> Session {
        Session(id: id, profile: id, origin: .manual, strict: false, rules: rules, duration: .seconds(60), now: reading(boot: 0, wall: 0))
    }

    @Test func blocklistsUniteAddressesAndAllowlistsIntersect() throws {
        var set = SessionSet()
        set.insert(session("a", try rules(["reddit.com"], addresses: ["203.0.113.0/24"])))
        set.insert(session("b", try rules(["x.com"], addresses: ["2001:db8::/32", "203.0.113.0/24"])))
        var desired = set.desiredBlock
        #expect(desired.domains == ["reddit.com", "www.reddit.com", "www.x.com", "x.com"])
        #expect(desired.addresses.map(\.description) == ["203.0.113.0/24", "2001:db8::/32"])
        #expect(desired.allowOnly == nil)

        set.insert(session("c", try rules(["docs.example", "wiki.example"], addresses: ["192.0.2.1"], mode: .allowlist)))
        set.insert(session("d", try rules(["docs.example"], addresses: ["192.0.2.1", "192.0.2.2"], mode: .allowlist)))
        desired = set.desiredBlock
        #expect(desired.allowOnly?.domains == ["docs.example", "www.docs.example"])
        #expect(desired.allowOnly?.addresses.map(\.description) == ["192.0.2.1"])
        // The blocklists still apply on top, and the hosts file is given only their names.
        #expect(desired.domains.contains("reddit.com"))
        #expect(!desired.domains.contains("docs.example"))
    }

    @Test func anAllowlistBlocksEverythingItDoesNotName() throws {
        let allow = try rules(["docs.example"], mode: .allowlist)
        #expect(allow.blockingRule(for: "docs.example") == nil)
        #expect(allow.blockingRule(for: "api.docs.example") == nil)
        #expect(allow.blockingRule(for: "reddit.com") == BlockRules.notAllowed)
        #expect(allow.exactNames.isEmpty)
        #expect(allow.allowedNames == ["docs.example", "www.docs.example"])
    }

    @Test func strictChangesOnlyGetStricter() throws {
        let old = try rules(["a.example", "b.example"], addresses: ["192.0.2.1"], mode: .allowlist)
        let new = try rules(["a.example", "c.example"], addresses: ["192.0.2.1", "192.0.2.9"], mode: .allowlist)
        let merged = old.merged(with: new)
        #expect(merged.block.sorted == ["a.example"])
        #expect(merged.addresses.map(\.description) == ["192.0.2.1"])
        #expect(old.merged(with: try rules(["z.example"])) == old)
        let blocking = try rules(["a.example"], addresses: ["192.0.2.1"]).merged(with: try rules(["b.example"], addresses: ["192.0.2.2"]))
        #expect(blocking.addresses.count == 2)
    }

    @Test func rulesSavedBeforeAddressesExistedStillLoad() throws {
        let old = Data(#"{"block":{"rules":["a.example"]},"allow":{"rules":[]}}"#.utf8)
        let decoded = try JSONDecoder().decode(BlockRules.self, from: old)
        #expect(decoded.mode == .blocklist && decoded.addresses.isEmpty && decoded.block.sorted == ["a.example"])
    }

    @Test func anAllowlistProfileTakesNoExceptions() throws {
        let profile = Profile(
            name: "p", domains: [try DomainName(validatingNormalized: "a.example")],
            allow: [try DomainName(validatingNormalized: "b.example")],
            mode: .allowlist)
        #expect { try profile.validate(against: ServiceCatalog()) } throws: { ($0 as? FieldError)?.field == "allow" }
    }
}
