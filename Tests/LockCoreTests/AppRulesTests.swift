import Foundation
import LockCore
import TestSupport
import Testing

@Suite("Apps in profiles, session rules and the desired block")
struct AppRulesTests {
    let now = ClockReading(wall: Date(timeIntervalSince1970: 1_800_000_000), boot: BootTime(seconds: 100), bootID: "b")

    func session(
        _ id: String, strict: Bool = false, apps: [BlockedApp], missing: [String] = [],
        mode: ProfileMode = .blocklist
    ) -> Session {
        Session(
            id: id, profile: id, origin: .manual, strict: strict,
            rules: BlockRules(block: DomainSet(["a.com"]), mode: mode, apps: apps, missingApps: missing),
            duration: .seconds(600), now: now)
    }

    @Test(arguments: ["steam", "org.telegram.desktop", "kde4-kate", "/opt/game/game", "/opt/My Games/game", "Discord"])
    func acceptsAppNames(name: String) throws { try AppName.validate(name) }

    @Test(arguments: [
        "", "game/bin", "./game", "steam deck", "a\u{7}b", "/opt/../bin/sh", "/opt/./x",
        String(repeating: "a", count: 256), "/" + String(repeating: "a", count: 4096),
    ])
    func refusesAppNames(name: String) {
        #expect(throws: FieldError.self) { try AppName.validate(name) }
    }

    @Test func profileValidationNamesTheAppField() {
        let profile = Profile(name: "p", apps: ["steam", "two words"])
        #expect { try profile.validate(against: ServiceCatalog()) } throws: {
            ($0 as? FieldError)?.field == "apps" && ($0 as? FieldError)?.value == "two words"
        }
    }

    @Test func profilesDropRepeatedAppsAndCategories() throws {
        let game = try AppCategory(parsing: "game")
        let profile = Profile(name: "p", apps: ["steam", "steam", "lutris"], appCategories: [game, try AppCategory(parsing: "GAME")])
        #expect(profile.apps == ["steam", "lutris"])
        #expect(profile.appCategories == [game])
        #expect(profile.running == .terminate)
    }

    @Test func desiredBlockUnitesAppsAndTakesStrictnessFromTheSession() {
        let steam = BlockedApp(id: "steam", name: "Steam", executables: ["/usr/games/steam"], running: .freeze)
        let steamElsewhere = BlockedApp(id: "steam", name: "Steam", executables: ["/opt/steam/steam"])
        let chat = BlockedApp(id: "chat", executables: ["/usr/bin/chat"])
        let set = SessionSet([session("one", apps: [steam]), session("two", strict: true, apps: [steamElsewhere, chat])])
        let desired = set.desiredBlock
        #expect(desired.apps.map(\.id) == ["chat", "steam"])
        let merged = desired.apps[1]
        #expect(merged.executables == ["/opt/steam/steam", "/usr/games/steam"])
        #expect(merged.strict, "a strict session blocking an app matches its copies")
        #expect(merged.running == .terminate, "terminating wins over freezing")
        #expect(desired.apps[0].strict)
        // Only one non-strict session: nothing is matched by content.
        #expect(SessionSet([session("one", apps: [steam])]).desiredBlock.apps.allSatisfy { !$0.strict })
    }

    @Test func appsAreBlockedInAllowlistSessionsToo() {
        let game = BlockedApp(id: "game", executables: ["/opt/game"])
        let desired = SessionSet([session("allow", apps: [game], mode: .allowlist)]).desiredBlock
        #expect(desired.apps.map(\.id) == ["game"])
        #expect(desired.allowOnly != nil)
    }

    @Test func onlyAppsIsStillABlockButNotANetworkBlock() {
        let game = BlockedApp(id: "game", executables: ["/opt/game"])
        let appsOnly = Session(
            id: "s", profile: "p", origin: .manual, strict: false,
            rules: BlockRules(block: DomainSet([]), apps: [game]), duration: .seconds(60), now: now)
        let desired = SessionSet([appsOnly]).desiredBlock
        #expect(!desired.isEmpty)
        #expect(!desired.blocksNetwork)
    }

    @Test func strictRulesOnlyGainApps() {
        let steam = BlockedApp(id: "steam", executables: ["/usr/games/steam"])
        let lutris = BlockedApp(id: "lutris", executables: ["/usr/bin/lutris"])
        let old = BlockRules(block: DomainSet(["a.com"]), apps: [steam], missingApps: ["heroic"])
        let new = BlockRules(block: DomainSet(["a.com"]), apps: [lutris], missingApps: ["steam", "itch"])
        let merged = old.merged(with: new)
        #expect(merged.apps.map(\.id) == ["lutris", "steam"])
        // Still blocked, so not reported missing; the profile's current view otherwise.
        #expect(merged.missingApps == ["itch"])
        // A change of mode waits for the session to end, but apps are still gained.
        let allow = BlockRules(block: DomainSet(["a.com"]), mode: .allowlist, apps: [lutris])
        #expect(old.merged(with: allow).apps.map(\.id) == ["lutris", "steam"])
        #expect(old.merged(with: allow).mode == .blocklist)
    }

    @Test func sessionsFindTheAppByIdOrByAProgramInCommon() {
        let steam = BlockedApp(id: "steam", executables: ["/usr/games/steam", "/usr/lib/steam/steam"])
        let set = SessionSet([session("games", apps: [steam]), session("other", apps: [])])
        #expect(set.blockers(ofApp: "steam", executables: []).map(\.session.id) == ["games"])
        let byPath = set.blockers(ofApp: "com.valvesoftware.Steam", executables: ["/usr/lib/steam/steam"])
        #expect(byPath.map(\.rule) == ["steam"])
        #expect(set.blockers(ofApp: "lutris", executables: ["/usr/bin/lutris"]).isEmpty)
    }

    @Test func rulesWithAppsSurviveEncodingAndOldRulesStillLoad() throws {
        let rules = BlockRules(
            block: DomainSet(["a.com"]), apps: [BlockedApp(id: "g", name: "G", executables: ["/g"], running: .freeze)],
            missingApps: ["x"])
        let data = try JSONEncoder().encode(rules)
        #expect(try JSONDecoder().decode(BlockRules.self, from: data) == rules)
        // Rules without apps are written as before apps existed, and such rules still load.
        let old = try JSONEncoder().encode(BlockRules(block: DomainSet(["a.com"])))
        #expect(try JSONMembers.read(old).keys == ["block", "allow", "addresses", "mode"])
        let decoded = try JSONDecoder().decode(BlockRules.self, from: old)
        #expect(decoded.apps.isEmpty && decoded.missingApps.isEmpty)
    }
}
