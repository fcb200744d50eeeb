import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// `lockctl schedules edit`, and strict schedules that must not lock anyone in without warning:
/// one that becomes strict while its window is open blocks strictly only from its next interval,
/// unless asked to start now.
@Suite("Schedules: edits and strict starts")
struct ScheduleEditTests {
    let scratch: Scratch
    let clock = ManualClock()  // Friday 2027-01-15 08:00:00 UTC
    let fake = FakeEnforcer()
    let timer = RecordingWallTimer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    func start() async throws -> TestDaemon {
        try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [fake], scheduleTimer: timer)
    }

    /// Open now: Friday 07:00–10:00, two hours left.
    static let openWindow = CreateScheduleRequest(name: "exam", profile: "news", days: "fri", from: "07:00", to: "10:00", strict: true)

    @Test func aStrictScheduleAddedDuringItsWindowWaitsForTheNextInterval() async throws {
        let daemon = try await start()
        let created = try await daemon.api.createSchedule(Self.openWindow)
        #expect(created.active && created.strictDeferred)
        #expect(created.session == nil)
        #expect(await daemon.sessions.active.isEmpty)
        // Not even at the next evaluation, nor after a restart.
        await daemon.scheduler.evaluate("edge")
        #expect(await daemon.sessions.active.isEmpty)
        let restarted = try await start()
        #expect(await restarted.sessions.active.isEmpty)
        #expect(try await restarted.api.schedule("exam").strictDeferred)
        // A week later its next interval blocks, strictly.
        clock.advance(7 * 86_400 - 3600)
        await restarted.scheduler.evaluate("edge")
        let session = try #require(await restarted.sessions.active.first)
        #expect(session.strict && session.origin == .schedule("exam"))
        #expect(try await restarted.api.schedule("exam").strictDeferred == false)
    }

    @Test func nowStartsTheStrictBlockAtOnce() async throws {
        let daemon = try await start()
        var request = Self.openWindow
        request.now = true
        let created = try await daemon.api.createSchedule(request)
        #expect(created.session != nil && !created.strictDeferred)
        let session = try #require(await daemon.sessions.active.first)
        #expect(session.strict && session.remaining(at: clock.now()) == .seconds(7200))
    }

    @Test func aDeferredScheduleCanBeStartedLaterWithNow() async throws {
        let daemon = try await start()
        _ = try await daemon.api.createSchedule(Self.openWindow)
        let started = try await daemon.api.updateSchedule("exam", UpdateScheduleRequest(now: true))
        #expect(started.session != nil && !started.strictDeferred)
        #expect(await daemon.sessions.active.first?.strict == true)
    }

    @Test func makingARunningBlockStrictTakesEffectAtTheNextInterval() async throws {
        let daemon = try await start()
        var lenient = Self.openWindow
        lenient.strict = false
        _ = try await daemon.api.createSchedule(lenient)
        #expect(await daemon.sessions.active.first?.strict == false)
        let changed = try await daemon.api.updateSchedule("exam", UpdateScheduleRequest(strict: true))
        #expect(changed.strictDeferred && changed.strict)
        #expect(await daemon.sessions.active.first?.strict == false, "the running block stays as lenient as it was")
        // It can still be stopped, and stays stopped.
        _ = try await daemon.api.stop("news")
        await daemon.scheduler.evaluate("edge")
        #expect(await daemon.sessions.active.isEmpty)
    }

    @Test func editsChangeWhatIsGivenAndKeepTheRest() async throws {
        let daemon = try await start()
        _ = try await daemon.api.createSchedule(
            CreateScheduleRequest(name: "am", profile: "news", days: "mon-fri", from: "09:00", to: "12:30"))
        let edited = try await daemon.api.updateSchedule("am", UpdateScheduleRequest(to: "13:00", warnSeconds: 600))
        #expect(edited.days == "mon-fri" && edited.from == "09:00" && edited.to == "13:00" && edited.warnSeconds == 600)
        #expect(scratch.read("etc/simplylock/schedules.d/am.toml")?.contains("to = \"13:00\"") == true)
        let calendar = try await daemon.api.updateSchedule("am", UpdateScheduleRequest(on: "Mon..Fri 09:30", seconds: 2700))
        #expect(calendar.kind == "calendar" && calendar.seconds == 2700)
        let longer = try await daemon.api.updateSchedule("am", UpdateScheduleRequest(seconds: 3600))
        #expect(longer.on == calendar.on && longer.seconds == 3600)
        // Refused values name their field and change nothing.
        do {
            _ = try await daemon.api.updateSchedule("am", UpdateScheduleRequest(from: "25:00"))
            Issue.record("a bad time was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.hasPrefix("from:") || error.message.hasPrefix("days:"), "\(error.message)")
        }
        #expect(try await daemon.api.schedule("am").seconds == 3600)
        do {
            _ = try await daemon.api.updateSchedule("am", UpdateScheduleRequest(profile: "ghost"))
            Issue.record("an unknown profile was accepted")
        } catch {
            #expect(error.code == .notFound)
        }
    }

    @Test func aRunningStrictBlockCannotBeWeakened() async throws {
        let daemon = try await start()
        var request = Self.openWindow
        request.now = true
        _ = try await daemon.api.createSchedule(request)
        for change in [UpdateScheduleRequest(enabled: false), UpdateScheduleRequest(profile: "social")] {
            do {
                _ = try await daemon.api.updateSchedule("exam", change)
                Issue.record("\(change) weakened a strict block")
            } catch {
                #expect(error.code == .refused)
                #expect(error.hint != nil)
            }
        }
        // An earlier end or a lenient schedule is taken, but the running block keeps its end.
        _ = try await daemon.api.updateSchedule("exam", UpdateScheduleRequest(to: "08:30", strict: false))
        let session = try #require(await daemon.sessions.active.first)
        #expect(session.strict && session.remaining(at: clock.now()) == .seconds(7200))
    }

    @Test func recordsSavedBeforeDeferralsExistedStillLoad() throws {
        let old = #"{"intervalStart": 1800000000, "stoppedByHand": true}"#
        let record = try JSONDecoder().decode(ScheduleRecord.self, from: Data(old.utf8))
        #expect(record.stoppedByHand && !record.strictDeferred)
    }
}
