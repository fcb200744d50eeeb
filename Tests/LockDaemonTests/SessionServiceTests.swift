import Foundation
import GRDB
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import Logging
import TestSupport
import Testing

@testable import LockDaemon

@Suite("Sessions through the in-process API, with a fake enforcer and a real SQLite store")
struct SessionServiceTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let timer = RecordingTimer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    func makeManager(store: StateStore? = nil) async throws -> TestDaemon {
        try await TestDaemon.start(scratch: scratch, store: store ?? self.store, clock: clock, enforcers: [fake], sessionTimer: timer)
    }

    @Test func startEnforcesAndArmsTheTimer() async throws {
        let manager = try await makeManager()
        let info = try await manager.api.start(StartRequest(profile: "news", seconds: 600))
        #expect(info.remainingSeconds == 600)
        #expect(await fake.current?.domains.contains("news.ycombinator.com") == true)
        #expect(timer.last == clock.now().boot + .seconds(600))
    }

    @Test func wallClockChangesDoNotEndABlock() async throws {
        let manager = try await makeManager()
        _ = try await manager.api.start(StartRequest(profile: "news", seconds: 600))
        clock.setWall(by: 86_400 * 3)
        await manager.sessions.expireDue()
        #expect(await manager.sessions.active.count == 1)
        clock.advance(599)
        await manager.sessions.expireDue()
        #expect(await manager.sessions.active.count == 1)
        clock.advance(1)
        await manager.sessions.expireDue()
        #expect(await manager.sessions.active.isEmpty)
        #expect(await fake.current == .empty)
        #expect(try store.history(limit: 1).first?.endReason == .expired)
    }

    @Test func strictSessionsRefuseToStop() async throws {
        let manager = try await makeManager()
        _ = try await manager.api.start(StartRequest(profile: "social", seconds: 600, strict: true))
        await #expect(throws: APIError.self) { try await manager.api.stop("social") }
        do { _ = try await manager.api.stop("social") } catch { #expect(error.code == .refused) }
        #expect(await manager.sessions.active.count == 1)
    }

    @Test func failedEnforcementChangesNothing() async throws {
        let manager = try await makeManager()
        _ = try await manager.api.start(StartRequest(profile: "news", seconds: 600))
        let before = await fake.current
        await fake.setFailure("disk full")
        do {
            _ = try await manager.api.start(StartRequest(profile: "video", seconds: 600))
            Issue.record("start succeeded although enforcement failed")
        } catch {
            #expect(error.code == .internalError)
            #expect(error.message.contains("disk full"))
        }
        #expect(await manager.sessions.active.map(\.profile) == ["news"])
        #expect(try store.activeSessions().map(\.profile) == ["news"])
        #expect(try store.history(limit: 10).map(\.profile) == ["news"])
        #expect(await fake.current == before)
    }

    @Test func invalidRequestsAreRefusedWithTheField() async throws {
        let manager = try await makeManager()
        for (request, fragment) in [
            (StartRequest(profile: "news", seconds: 0), "duration"),
            (StartRequest(profile: "news", seconds: 86_400 * 365), "limit"),
            (StartRequest(profile: "news"), "exactly one"),
            (StartRequest(profile: "news", until: clock.now().wall.addingTimeInterval(-5)), "until"),
        ] {
            do {
                _ = try await manager.api.start(request)
                Issue.record("accepted \(request)")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
        #expect(await manager.sessions.active.isEmpty)
        #expect(await fake.applied.last ?? .empty == .empty)
    }

    /// `start --until 17:30` at 11:32:07.6 must end at 17:30, not 17:29:59.6, which the wire's
    /// whole-second times and the clock text showed as "until 17:29".
    @Test func untilEndsNoEarlierThanTheTimeAskedFor() async throws {
        let utc = TimeZone(identifier: "UTC")!
        for fraction in [0.1, 0.4, 0.6, 0.9] {
            let clock = ManualClock(wall: 1_800_000_000 + fraction)
            let scratch = try Scratch()
            try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
            let manager = try await TestDaemon.start(
                scratch: scratch, store: try StateStore(path: scratch.paths.stateDatabase), clock: clock, enforcers: [FakeEnforcer()])
            let until = Date(timeIntervalSince1970: 1_800_000_000 + 6 * 3600)
            let info = try await manager.api.start(StartRequest(profile: "news", until: until))
            let wire = try API.makeDecoder().decode(SessionInfo.self, from: API.makeEncoder().encode(info))
            #expect(wire.endsAt >= until, "fraction \(fraction): ends \(wire.endsAt)")
            #expect(
                ClockText.time(wire.endsAt, now: clock.now().wall, zone: utc) == ClockText.time(until, now: clock.now().wall, zone: utc))
            #expect(wire.remainingSeconds == 6 * 3600, "fraction \(fraction)")
        }
    }

    @Test func restartWithinTheSameBootResumesExactly() async throws {
        let first = try await makeManager()
        _ = try await first.api.start(StartRequest(profile: "news", seconds: 600))
        clock.advance(100)
        let second = try await makeManager()
        let status = try await second.api.status()
        #expect(status.sessions.first?.remainingSeconds == 500)
    }

    @Test func rebootResumesWithCheckpointMinusTimeOff() async throws {
        let first = try await makeManager()
        _ = try await first.api.start(StartRequest(profile: "news", seconds: 3600))
        clock.advance(600)
        await first.sessions.checkpoint()
        clock.advance(30)  // lost: not checkpointed before the power went
        clock.reboot(offSeconds: 900, bootID: "boot-2")
        let second = try await makeManager()
        #expect(try await second.api.status().sessions.first?.remainingSeconds == 3000 - 930)
    }

    @Test func sessionsThatRanOutWhileOffEndAsDaemonRestart() async throws {
        let first = try await makeManager()
        _ = try await first.api.start(StartRequest(profile: "news", seconds: 60))
        clock.reboot(offSeconds: 3600, bootID: "boot-2")
        let second = try await makeManager()
        #expect(await second.sessions.active.isEmpty)
        #expect(try store.history(limit: 1).first?.endReason == .daemonRestart)
        #expect(await fake.current == .empty)
    }

    @Test func profileChangesReachRunningSessionsStrictOnesOnlyGrow() async throws {
        let manager = try await makeManager()
        _ = try await manager.api.createProfile(CreateProfileRequest(name: "focus", domains: ["reddit.com", "x.com"]))
        _ = try await manager.api.start(StartRequest(profile: "focus", seconds: 600, strict: true))
        // An edit that takes anything away is refused as a whole, additions included…
        do {
            _ = try await manager.api.updateProfile("focus", UpdateProfileRequest(addDomains: ["example.com"], removeDomains: ["x.com"]))
            Issue.record("a strict block accepted an edit removing a domain")
        } catch { #expect(error.code == .refused) }
        #expect(scratch.read("etc/simplylock/profiles.d/focus.toml")?.contains("\"example.com\"") == false)
        // …and additions alone apply at once.
        _ = try await manager.api.updateProfile("focus", UpdateProfileRequest(addDomains: ["example.com"]))
        var domains = await fake.current?.domains ?? []
        #expect(domains.contains("example.com"))
        #expect(scratch.read("etc/simplylock/profiles.d/focus.toml")?.contains("\"example.com\"") == true)
        // A hand edit cannot be refused: picked up by a reload, the strict block keeps what it had.
        try scratch.write("etc/simplylock/profiles.d/focus.toml", "name = \"focus\"\ndomains = [\"reddit.com\"]\n")
        _ = try await manager.api.reload()
        domains = await fake.current?.domains ?? []
        #expect(domains.contains("x.com"), "a strict block lost a domain")
        #expect(domains.contains("example.com"), "a strict block lost a domain")
        do {
            try await manager.api.deleteProfile("focus")
            Issue.record("deleted a profile in use")
        } catch { #expect(error.code == .refused) }
    }

    @Test func ownedSessionsAreAdjustedInPlaceAndEndedByTheirOwner() async throws {
        let manager = try await makeManager()
        let origin = SessionOrigin.schedule("mornings")
        let first = try await manager.sessions.reconcileOwned(origin, OwnedSession(profile: "news", remaining: .seconds(600), strict: true))
        #expect(first?.origin == origin)
        #expect(await fake.current?.domains.contains("news.ycombinator.com") == true)
        let appliedBefore = await fake.applied.count
        // The same interval seen again a little later: nothing to do.
        clock.advance(10)
        _ = try await manager.sessions.reconcileOwned(origin, OwnedSession(profile: "news", remaining: .seconds(590), strict: true))
        #expect(await fake.applied.count == appliedBefore)
        // The wall clock moved, so the interval ends sooner: the same session, a new end.
        let moved = try await manager.sessions.reconcileOwned(origin, OwnedSession(profile: "news", remaining: .seconds(60), strict: true))
        #expect(moved?.id == first?.id)
        #expect(try await manager.api.status().sessions.first?.remainingSeconds == 60)
        #expect(try store.history(limit: 10).count == 1)
        // A strict owned session cannot be stopped by hand, but its owner ends it.
        do {
            _ = try await manager.api.stop("news")
            Issue.record("stopped a strict scheduled session")
        } catch { #expect(error.code == .refused) }
        _ = try await manager.sessions.reconcileOwned(origin, nil)
        #expect(await manager.sessions.active.isEmpty)
        #expect(try store.history(limit: 1).first?.endReason == .stopped)
    }

    @Test func pomodoroSessionsAreStoppedThroughThePomodoroTimer() async throws {
        let manager = try await makeManager()
        _ = try await manager.sessions.reconcileOwned(.pomodoro, OwnedSession(profile: "news", remaining: .seconds(60), strict: false))
        do {
            _ = try await manager.api.stop("news")
            Issue.record("stopped a pomodoro session")
        } catch {
            #expect(error.hint?.contains("lockctl pomodoro stop") == true)
        }
        // A manual block of the same profile can be stopped by name; the timer's stays.
        _ = try await manager.api.start(StartRequest(profile: "news", seconds: 600))
        let stopped = try await manager.api.stop("news")
        #expect(stopped.map(\.origin) == ["manual"])
        #expect(await manager.sessions.active.map(\.origin) == [.pomodoro])
    }

    @Test func checkNamesTheRule() async throws {
        let manager = try await makeManager()
        _ = try await manager.api.start(StartRequest(profile: "social", seconds: 60))
        let check = try await manager.api.check("https://old.reddit.com/r/swift")
        #expect(check.blocked)
        #expect(check.name == "old.reddit.com")
        #expect(check.matches.first?.rule == "reddit.com")
        #expect(try await manager.api.check("example.org").blocked == false)
    }
}

@Suite("Sessions across reboots, clocks that cannot be trusted, and enforcement that fails")
struct SessionTimeTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let timer = RecordingTimer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    func daemon() async throws -> TestDaemon {
        try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [fake], sessionTimer: timer)
    }

    @Test func aRebootWithTheClockMovedForwardKeepsAStrictBlockUntilTheClockIsSynchronised() async throws {
        let first = try await daemon()
        _ = try await first.api.start(StartRequest(profile: "news", seconds: 3600, strict: true))
        clock.advance(600)
        await first.sessions.checkpoint()
        // The clock is moved a day ahead and the machine rebooted; the kernel says the clock is
        // not synchronised (setting it by hand does that).
        clock.setSynchronised(false)
        clock.reboot(offSeconds: 86_400, bootID: "boot-2")
        let second = try await daemon()
        #expect(try await second.api.status().sessions.first?.remainingSeconds == 3000)
        #expect(try store.history(limit: 1).first?.endedAt == nil)
        #expect(await fake.current?.domains.contains("news.ycombinator.com") == true)
        clock.advance(60)
        await second.sessions.checkpoint()
        #expect(try await second.api.status().sessions.first?.remainingSeconds == 2940)
        // Once the clock is synchronised, a day really passed: the block ran out while off.
        clock.setSynchronised(true)
        await second.sessions.checkpoint()
        await second.sessions.expireDue()
        #expect(await second.sessions.active.isEmpty)
        #expect(try store.history(limit: 1).first?.endReason == .daemonRestart)
    }

    @Test func aSynchronisedCorrectionThatLeavesTimeKeepsTheBlockWithLess() async throws {
        let first = try await daemon()
        _ = try await first.api.start(StartRequest(profile: "news", seconds: 3600, strict: true))
        clock.setSynchronised(false)
        clock.reboot(offSeconds: 600, bootID: "boot-2")
        let second = try await daemon()
        #expect(try await second.api.status().sessions.first?.remainingSeconds == 3600)
        clock.advance(100)
        clock.setSynchronised(true)
        await second.sessions.checkpoint()
        #expect(try await second.api.status().sessions.first?.remainingSeconds == 3600 - 600 - 100)
        // The correction is saved: a restart does not apply it twice.
        let third = try await daemon()
        #expect(try await third.api.status().sessions.first?.remainingSeconds == 2900)
    }

    @Test func aStopThatCannotBeEnforcedChangesNothing() async throws {
        let daemon = try await self.daemon()
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600))
        let before = await fake.current
        await fake.setFailure("read-only file system")
        do {
            _ = try await daemon.api.stop("news")
            Issue.record("stopped although the block could not be lifted")
        } catch {
            #expect(error.code == .internalError && error.message.contains("read-only file system"))
        }
        #expect(await daemon.sessions.active.map(\.profile) == ["news"])
        #expect(try store.activeSessions().map(\.profile) == ["news"])
        #expect(try store.history(limit: 1).first?.endedAt == nil)
        #expect(await fake.current == before)
        await fake.setFailure(nil)
        #expect(try await daemon.api.stop("news").count == 1)
    }

    @Test func anExpiryThatCannotBeEnforcedIsRetried() async throws {
        let daemon = try await self.daemon()
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 60))
        await fake.setFailure("busy")
        clock.advance(60)
        await daemon.sessions.expireDue()
        #expect(await daemon.sessions.active.count == 1)
        #expect(timer.last == clock.now().boot + .seconds(5))
        await fake.setFailure(nil)
        clock.advance(5)
        await daemon.sessions.expireDue()
        #expect(await daemon.sessions.active.isEmpty)
        #expect(await fake.current == .empty)
        #expect(try store.history(limit: 1).first?.endReason == .expired)
    }

    @Test func sessionsSavedByVersionTwoAreRestoredAfterTheUpgrade() async throws {
        let path = scratch.path + "/v2.sqlite"
        // A database as version 2 left it: the session as a JSON blob in the API's format.
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1'), ('v2');
                    CREATE TABLE session (id TEXT PRIMARY KEY, profile TEXT NOT NULL, origin TEXT NOT NULL, data BLOB NOT NULL);
                    CREATE TABLE history (id TEXT PRIMARY KEY, profile TEXT NOT NULL, origin TEXT NOT NULL, strict BOOLEAN NOT NULL,
                        startedAt DATETIME NOT NULL, plannedEnd DATETIME NOT NULL, endedAt DATETIME, endReason TEXT, blockedNames INTEGER NOT NULL);
                    CREATE TABLE keyValue (key TEXT PRIMARY KEY, value BLOB NOT NULL);
                    CREATE TABLE pomodoroFocus (id INTEGER PRIMARY KEY AUTOINCREMENT, run TEXT NOT NULL, profile TEXT NOT NULL,
                        cycle INTEGER NOT NULL, cycles INTEGER, startedAt DATETIME NOT NULL, endedAt DATETIME NOT NULL,
                        focusedSeconds DOUBLE NOT NULL, UNIQUE(run, cycle));
                    """)
            let blob =
                #"{"bootID":"boot-1","checkpointRemaining":[32,9704189641294348288],"checkpointWall":"2027-01-15T08:00:00Z","endBoot":{"nanoseconds":1600000000000},"id":"abc123","origin":"schedule:mornings","profile":"news","rules":{"addresses":["192.0.2.0/24"],"allow":{"rules":[]},"block":{"rules":["news.ycombinator.com"]},"mode":"blocklist"},"startedAt":"2027-01-15T07:50:00Z","strict":true}"#
            try db.execute(sql: "INSERT INTO session VALUES ('abc123', 'news', 'schedule:mornings', ?)", arguments: [Data(blob.utf8)])
        }
        try old.close()
        let upgraded = try StateStore(path: path)
        let session = try #require(try upgraded.activeSessions().first)
        #expect(session.id == "abc123" && session.origin == .schedule("mornings") && session.strict)
        #expect(session.checkpointRemaining == .seconds(600) && session.endBoot == BootTime(seconds: 1600))
        #expect(session.rules.block.sorted == ["news.ycombinator.com"] && session.rules.addresses.map(\.description) == ["192.0.2.0/24"])
        #expect(session.startedAt == Timestamp.parse("2027-01-15T07:50:00Z"))
        #expect(session.checkpointWall == Timestamp.parse("2027-01-15T08:00:00Z"))
    }
}
