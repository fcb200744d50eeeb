import Foundation
import GRDB
import LockCore
import LockEnforcement
import LockProtocol
import TestSupport
import Testing

@testable import LockDaemon
@testable import LockStore

@Suite("Block targets: device groups from [lan], sessions, schedules and Pomodoro runs aimed at them")
struct DeviceGroupTargetTests {
    let scratch: Scratch
    let clock = ManualClock()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    static let kids = DeviceGroup(name: "kids", networks: [try! IPNetwork(parsing: "10.7.0.0/26")])
    static let office = DeviceGroup(name: "office", networks: [try! IPNetwork(parsing: "10.7.0.100")])

    func start(lanEnforcer: String = "unbound", groups: [DeviceGroup] = [kids, office]) async throws -> (
        TestDaemon, FakeEnforcer, FakeEnforcer
    ) {
        let local = FakeEnforcer(name: "hosts")
        let lan = FakeEnforcer(name: lanEnforcer)
        var configuration = DaemonConfiguration()
        configuration.lan.groups = groups
        let daemon = try await TestDaemon.start(
            scratch: scratch, store: store, clock: clock, enforcers: [local, lan],
            configuration: configuration)
        return (daemon, local, lan)
    }

    @Test func aSessionForAGroupBlocksThereAndNotOnThisMachine() async throws {
        let (daemon, local, lan) = try await start()
        let info = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["kids"]))
        #expect(info.target == ["kids"])
        let desired = try #require(await lan.current)
        #expect(desired.domains.isEmpty)
        #expect(desired.lan.groups.map(\.name) == ["kids", "office"])
        #expect(desired.lan.verdict(for: "m.news.ycombinator.com", target: "kids") != nil)
        #expect(desired.lan.verdict(for: "news.ycombinator.com", target: "office") == nil)
        #expect(await local.current?.domains.contains("news.ycombinator.com") != true)
        // Another target of the same profile is another session; the same one is refused.
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600))
        #expect(await local.current?.domains.contains("news.ycombinator.com") == true)
        await #expect(throws: APIError.self) {
            _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 60, target: ["kids", "lan"]))
        }
        _ = try await daemon.api.stop(info.id)
        #expect(await lan.current?.lan.isEmpty == true)
    }

    @Test func aBlockOnlyForOtherDevicesIsNoFocusTimeHere() async throws {
        let (daemon, _, _) = try await start()
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["kids"]))
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 300, target: ["kids", "local"]))
        clock.advance(900)
        await daemon.sessions.expireDue()
        let insights = try await daemon.api.call(Endpoints.insights)
        #expect(insights.totals.focusSeconds == 300)
    }

    @Test func checkAnswersForThisMachineUnlessAskedForAGroup() async throws {
        let (daemon, _, _) = try await start()
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["kids"]))
        func check(_ target: String?) async throws(APIError) -> CheckResponse {
            try await daemon.api.call(Endpoints.check, query: "name=news.ycombinator.com" + (target.map { "&for=" + $0 } ?? ""))
        }
        #expect(try await check(nil).blocked == false)
        #expect(try await check("local").blocked == false)
        #expect(try await check("kids").matches.map(\.profile) == ["news"])
        #expect(try await check("office").blocked == false)
        #expect(try await check("lan").blocked == false)
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["lan"]))
        // A group's devices are refused what the whole LAN's sessions block too.
        #expect(try await check("office").blocked == true)
        await #expect(throws: APIError.self) { _ = try await check("kid") }
    }

    @Test func unknownGroupsAndGroupsThroughDnsmasqAreRefusedWithTheReason() async throws {
        let (daemon, _, lan) = try await start()
        do {
            _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["kid"]))
            Issue.record("an unknown group was accepted")
        } catch {
            #expect(error.message.contains("unknown device group \"kid\""))
            #expect(error.hint == "did you mean kids?")
        }
        #expect(await lan.current?.lan.isEmpty != false)
        await #expect(throws: APIError.self) {
            _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["Bad Name"]))
        }
        let scratch2 = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch2.paths.stateDirectory, withIntermediateDirectories: true)
        let dnsmasq = try await TestDaemon.start(
            scratch: scratch2, store: try StateStore(path: scratch2.paths.stateDatabase), clock: clock,
            enforcers: [FakeEnforcer(name: "hosts"), FakeEnforcer(name: "dnsmasq")],
            configuration: {
                var c = DaemonConfiguration()
                c.lan.groups = [Self.kids]
                return c
            }())
        do {
            _ = try await dnsmasq.api.start(StartRequest(profile: "news", seconds: 600, target: ["kids"]))
            Issue.record("a device group was accepted through dnsmasq")
        } catch {
            #expect(error.message.contains("cannot be blocked through dnsmasq"))
        }
        let whole = try await dnsmasq.api.start(StartRequest(profile: "news", seconds: 600, target: ["lan"]))
        #expect(whole.target == ["lan"])
    }

    @Test func withoutALANEnforcerOnlyThisMachineCanBeTargeted() async throws {
        let daemon = try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [FakeEnforcer(name: "hosts")])
        do {
            _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["lan"]))
            Issue.record("lan was accepted without a LAN enforcer")
        } catch {
            #expect(error.message.contains("no LAN enforcer runs"))
        }
    }

    @Test func aReloadPutsNewGroupsInForceAndKeepsSessionsOfGroupsThatAreGone() async throws {
        let (daemon, _, lan) = try await start()
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["office"]))
        let file = String(daemon.core.paths.configFile.dropFirst(scratch.path.count + 1))
        try scratch.write(file, "[lan]\nkids = [\"10.7.0.0/25\"]\nteens = [\"10.7.1.0/24\"]\n")
        _ = try await daemon.api.reload()
        let desired = try #require(await lan.current)
        #expect(desired.lan.groups.map(\.name) == ["kids", "teens"])
        #expect(desired.lan.groups.first?.networks.map(\.description) == ["10.7.0.0/25"])
        #expect(desired.lan.unknownGroups == ["office"])
        await #expect(throws: APIError.self) {
            _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 60, target: ["office"]))
        }
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 60, target: ["teens"]))
        #expect(await lan.current?.lan.blockedGroups == ["office", "teens"])
    }

    @Test func targetsSurviveARestart() async throws {
        do {
            let (daemon, _, _) = try await start()
            _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600, target: ["kids", "office"]))
        }
        let (again, _, lan) = try await start()
        let status = try await again.api.status()
        #expect(status.sessions.map(\.target) == [["kids", "office"]])
        #expect(await lan.current?.lan.blockedGroups == ["kids", "office"])
    }

    @Test func aScheduleFileTargetsItsGroup() async throws {
        try scratch.write(
            "etc/simplylock/schedules.d/evenings.toml",
            """
            name = "evenings"
            profile = "news"
            days = "all"
            from = "00:00"
            to = "23:59"
            target = ["kids"]
            """)
        try scratch.write(
            "etc/simplylock/schedules.d/typo.toml",
            """
            name = "typo"
            profile = "news"
            days = "all"
            from = "00:00"
            to = "23:59"
            target = ["kisd"]
            """)
        let (daemon, local, lan) = try await start()
        let schedules = try await daemon.api.schedules()
        #expect(schedules.schedules.map(\.name) == ["evenings"])
        #expect(schedules.schedules.first?.target == ["kids"])
        #expect(await lan.current?.lan.blockedGroups == ["kids"])
        #expect(await local.current?.domains.isEmpty != false)
    }

    @Test func aPomodoroForAGroupBlocksItsFocusPhasesThere() async throws {
        let (daemon, _, lan) = try await start()
        _ = try await daemon.api.startPomodoro(PomodoroStartRequest(profile: "news", focusSeconds: 1500, target: ["office"]))
        #expect(await lan.current?.lan.blockedGroups == ["office"])
        await #expect(throws: APIError.self) {
            _ = try await daemon.api.startPomodoro(PomodoroStartRequest(profile: "social", target: ["nobody"]))
        }
    }
}

@Suite("[lan], [unbound] and [dnsmasq] in simplylockd.toml")
struct LANConfigurationTests {
    @Test func groupsAreReadAndBadOnesNamedWithTheirLine() throws {
        let scratch = try Scratch()
        try scratch.write(
            "simplylockd.toml",
            """
            enforcers = ["hosts", "unbound"]
            [lan]
            kids = ["192.168.1.0/26", "2001:db8::/64"]
            office = ["192.168.1.100"]
            lan = ["10.0.0.1"]
            tv = ["192.168.1.300"]
            twice = ["192.168.1.100"]
            [unbound]
            control = "/run/u.ctl"
            answer = "maybe"
            """)
        let loaded = DaemonConfiguration.load(scratch.path + "/simplylockd.toml")
        #expect(loaded.configuration.enforcers == ["hosts", "unbound"])
        #expect(loaded.configuration.lan.groups.map(\.name) == ["kids", "office"])
        #expect(loaded.configuration.lan.groups.first?.networks.count == 2)
        #expect(loaded.configuration.lan.unbound.control == "/run/u.ctl")
        #expect(loaded.configuration.lan.unbound.answerNull == false)
        let problems = loaded.problems.map(\.description)
        #expect(problems.contains { $0.contains(":5:") && $0.contains("lan.lan") && $0.contains("reserved") })
        #expect(problems.contains { $0.contains(":6:") && $0.contains("192.168.1.300") })
        #expect(problems.contains { $0.contains(":7:") && $0.contains("already in device group \"office\"") })
        #expect(problems.contains { $0.contains("unbound.answer") && $0.contains("\"maybe\"") })
        #expect(problems.count == 4)
    }

    @Test func unboundAndDnsmasqTogetherAreRefused() throws {
        let scratch = try Scratch()
        try scratch.write("simplylockd.toml", "enforcers = [\"hosts\", \"unbound\", \"dnsmasq\"]\n")
        #expect(throws: FileProblem.self) { _ = try DaemonConfiguration.load(scratch.path + "/simplylockd.toml").get() }
    }
}

@Suite("State saved before block targets existed")
struct TargetMigrationTests {
    @Test func sessionsSavedBeforeTargetsBlockThisMachine() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/state.sqlite"
        let now = ClockReading(wall: Date(timeIntervalSince1970: 1_800_000_000), boot: BootTime(seconds: 50), bootID: "boot")
        let session = Session(
            id: "old", profile: "news", origin: .manual, strict: false,
            rules: BlockRules(block: DomainSet(["news.test"])), duration: .seconds(600), now: now)
        do {
            // The schema as version 3 left it, and a row written then (no target column).
            let queue = try DatabaseQueue(path: path)
            try StateMigrations.migrator.migrate(queue, upTo: "v3")
            let record = try SessionRecord(session)
            try queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO activeSession (id, profile, origin, strict, startedAt, endBoot, bootID, checkpointRemaining,
                                                   checkpointWall, pendingOffSince, pendingResumedAt, rules)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        record.id, record.profile, record.origin, record.strict, record.startedAt, record.endBoot,
                        record.bootID, record.checkpointRemaining, record.checkpointWall, record.pendingOffSince,
                        record.pendingResumedAt, record.rules,
                    ])
            }
        }
        let store = try StateStore(path: path)
        let loaded = try store.activeSessions()
        #expect(loaded.map(\.id) == ["old"])
        #expect(loaded.first?.target == .thisMachine)
        // And a target written now reads back.
        var kids = session
        kids.id = "new"
        kids.target = try BlockTarget(parsing: ["kids", "lan"])
        try store.commit(SessionChange(started: [kids]), at: now)
        #expect(try store.activeSessions().first { $0.id == "new" }?.target.names == ["kids", "lan"])
    }
}
