import Foundation
import LockCore
import Testing

/// The allowance ledger on an injected clock: reset at local midnight, weekly rollover, a wall
/// clock moved in either direction, reboots in the middle of a period, warnings and open limits.
@Suite("Allowance ledger")
struct AllowanceLedgerTests {
    let berlin = zone("Europe/Berlin")

    /// Both clocks, moved together unless a test moves one alone.
    struct Clock {
        var wall: Date
        var boot = BootTime(nanoseconds: 3_600_000_000_000)
        var bootID = "boot-1"
        var synchronised = true

        var reading: ClockReading { ClockReading(wall: wall, boot: boot, bootID: bootID, wallIsSynchronised: synchronised) }

        mutating func pass(_ seconds: Double) {
            wall += seconds
            boot = boot + .seconds(seconds)
        }

        mutating func reboot(id: String, wall: Date, synchronised: Bool) {
            bootID = id
            boot = BootTime(nanoseconds: 30_000_000_000)
            self.wall = wall
            self.synchronised = synchronised
        }
    }

    func videoTime(daily: Duration? = .seconds(1800), weekly: Duration? = nil, warn: Duration? = nil) -> Allowance {
        Allowance(name: "video-time", profile: "video", daily: daily, weekly: weekly, warn: warn)
    }

    /// Uses `seconds` of the allowance, reported a minute at a time as a meter does.
    func use(_ seconds: Double, _ allowance: Allowance, _ ledger: inout AllowanceLedger, _ clock: inout Clock) -> [AllowanceNotice] {
        var notices: [AllowanceNotice] = []
        var left = seconds
        while left > 0 {
            let step = min(60, left)
            clock.pass(step)
            notices += ledger.record(.seconds(step), for: allowance, at: clock.reading, in: berlin)
            left -= step
        }
        return notices
    }

    @Test func usedUpStartsABlockUntilLocalMidnightAndMidnightResetsIt() throws {
        // Friday 2026-11-27, 20:00 in Berlin (UTC+1).
        var clock = Clock(wall: utc("2026-11-27T19:00:00Z"))
        let allowance = videoTime()
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        #expect(use(1740, allowance, &ledger, &clock).isEmpty)
        #expect(ledger.desiredBlock(allowance, at: clock.reading, in: berlin) == nil)
        #expect(ledger.left(of: allowance) == .seconds(60))
        #expect(use(60, allowance, &ledger, &clock) == [.usedUp])
        let block = try #require(ledger.desiredBlock(allowance, at: clock.reading, in: berlin))
        // Used up at 20:30 local: the block lasts until midnight, 3 h 30 min.
        #expect(block.remaining == .seconds(3.5 * 3600))
        #expect(block.profile == "video")
        #expect(ledger.resetsAt(allowance) == utc("2026-11-27T23:00:00Z"))
        clock.pass(3.5 * 3600)
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedToday == .zero)
        #expect(ledger.desiredBlock(allowance, at: clock.reading, in: berlin) == nil)
        #expect(ledger.day.start == utc("2026-11-27T23:00:00Z"))
    }

    @Test func aStretchAcrossMidnightCountsOnlyItsPartAfterMidnight() {
        var clock = Clock(wall: utc("2026-11-27T22:59:30Z"))
        let allowance = videoTime()
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        clock.pass(60)
        _ = ledger.record(.seconds(60), for: allowance, at: clock.reading, in: berlin)
        #expect(ledger.usedToday == .seconds(30))
    }

    @Test func aDaylightSavingDayResetsAtItsOwnMidnight() throws {
        // Sunday 2027-03-28 in Berlin lasts 23 hours: used up at 12:00 CEST (10:00Z), the block
        // lasts until midnight CEST (22:00Z), 12 hours.
        var clock = Clock(wall: utc("2027-03-28T09:30:00Z"))
        let allowance = videoTime()
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        #expect(ledger.day.end.timeIntervalSince(ledger.day.start) == 23 * 3600)
        _ = use(1800, allowance, &ledger, &clock)
        #expect(try #require(ledger.desiredBlock(allowance, at: clock.reading, in: berlin)).remaining == .seconds(12 * 3600))
    }

    @Test func aWeeklyAllowanceRollsOverOnMondayNotAtEachMidnight() throws {
        // 5 h a week, no daily limit; Wednesday 2026-11-25, 10:00 local.
        var clock = Clock(wall: utc("2026-11-25T09:00:00Z"))
        let allowance = videoTime(daily: nil, weekly: .seconds(5 * 3600))
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        #expect(ledger.week.start == utc("2026-11-22T23:00:00Z"))
        #expect(ledger.week.end == utc("2026-11-29T23:00:00Z"))
        _ = use(3 * 3600, allowance, &ledger, &clock)
        clock.pass(24 * 3600)  // Thursday
        #expect(use(2 * 3600, allowance, &ledger, &clock).last == .usedUp)
        #expect(ledger.usedToday == .seconds(2 * 3600))
        let block = try #require(ledger.desiredBlock(allowance, at: clock.reading, in: berlin))
        #expect(clock.boot + block.remaining == ledger.week.endBoot, "blocked until the week ends")
        // Monday 00:00 local: a fresh week.
        clock.wall = utc("2026-11-29T23:00:00Z")
        clock.boot = ledger.week.endBoot
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedThisWeek == .zero)
        #expect(ledger.desiredBlock(allowance, at: clock.reading, in: berlin) == nil)
        #expect(ledger.week.start == utc("2026-11-29T23:00:00Z"))
    }

    @Test func movingTheWallClockBackGivesNoTimeBack() throws {
        var clock = Clock(wall: utc("2026-11-27T19:00:00Z"))
        let allowance = videoTime()
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        _ = use(1800, allowance, &ledger, &clock)
        let end = ledger.day.end
        // Back by a day and a half: the day is not "new", the block stands.
        clock.wall -= 36 * 3600
        clock.boot = clock.boot + .seconds(10)
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedToday == .seconds(1800))
        #expect(ledger.day.end == end)
        #expect(ledger.desiredBlock(allowance, at: clock.reading, in: berlin) != nil)
        // When the boot clock reaches the day's end the next day starts, never an earlier one,
        // and it lasts until the (wrong) wall clock gets through it.
        clock.boot = ledger.day.endBoot
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedToday == .zero)
        #expect(ledger.day.start == end)
        #expect(ledger.day.endBoot - clock.boot > .seconds(24 * 3600))
    }

    @Test func movingTheWallClockForwardStartsNoFreshDay() throws {
        var clock = Clock(wall: utc("2026-11-27T19:00:00Z"))
        let allowance = videoTime()
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        _ = use(1800, allowance, &ledger, &clock)
        clock.wall += 2 * 86_400
        clock.boot = clock.boot + .seconds(5)
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedToday == .seconds(1800))
        #expect(ledger.desiredBlock(allowance, at: clock.reading, in: berlin) != nil)
    }

    @Test func aRebootInTheMiddleOfTheDayKeepsWhatWasUsed() throws {
        var clock = Clock(wall: utc("2026-11-27T10:00:00Z"))
        let allowance = videoTime()
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        _ = use(1200, allowance, &ledger, &clock)
        // Saved and restored, as the store does, then the machine is off for an hour.
        let saved = try JSONDecoder().decode(AllowanceLedger.self, from: try JSONEncoder().encode(ledger))
        #expect(saved == ledger)
        ledger = saved
        clock.reboot(id: "boot-2", wall: clock.wall + 3600, synchronised: true)
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedToday == .seconds(1200))
        #expect(ledger.day.bootID == "boot-2")
        #expect(ledger.day.endBoot == clock.boot + .seconds(ledger.day.end.timeIntervalSince(clock.wall)))
        #expect(use(600, allowance, &ledger, &clock) == [.usedUp])
    }

    @Test func aRebootWithAnUnsynchronisedClockPastMidnightResetsNothing() throws {
        var clock = Clock(wall: utc("2026-11-27T21:00:00Z"))  // 22:00 local, two hours to midnight
        let allowance = videoTime()
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        _ = use(1800, allowance, &ledger, &clock)
        clock.reboot(id: "boot-2", wall: utc("2026-11-29T12:00:00Z"), synchronised: false)
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedToday == .seconds(1800))
        // What was left of the day at the last checkpoint: 1 h 30 min.
        #expect(try #require(ledger.desiredBlock(allowance, at: clock.reading, in: berlin)).remaining == .seconds(5400))
        // With the clock synchronised, the day is over.
        clock.reboot(id: "boot-3", wall: utc("2026-11-29T12:00:00Z"), synchronised: true)
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.usedToday == .zero)
        #expect(ledger.day.start == utc("2026-11-28T23:00:00Z"))
    }

    @Test func aWarningGoesOutOncePerPeriodBeforeTheTimeIsUsedUp() {
        var clock = Clock(wall: utc("2026-11-27T10:00:00Z"))
        let allowance = videoTime(warn: .seconds(300))
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        #expect(use(1440, allowance, &ledger, &clock).isEmpty)
        #expect(use(60, allowance, &ledger, &clock) == [.warning(left: .seconds(300))])
        #expect(use(240, allowance, &ledger, &clock).isEmpty)
        #expect(use(60, allowance, &ledger, &clock) == [.usedUp])
        #expect(use(60, allowance, &ledger, &clock).isEmpty, "used up is announced once")
    }

    @Test func daysOutsideTheAllowancesDaysCountNothing() {
        // Saturday 2026-11-28.
        var clock = Clock(wall: utc("2026-11-28T10:00:00Z"))
        var allowance = videoTime()
        allowance.days = .weekdays
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        #expect(use(3600, allowance, &ledger, &clock).isEmpty)
        #expect(ledger.usedToday == .zero)
        #expect(ledger.desiredBlock(allowance, at: clock.reading, in: berlin) == nil)
    }

    @Test func opensAndCooldown() {
        var clock = Clock(wall: utc("2026-11-27T10:00:00Z"))
        let allowance = Allowance(name: "games", profile: "gaming", opens: 2, cooldown: .seconds(600))
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        #expect(ledger.mayOpen(allowance, at: clock.reading, in: berlin) == .allowed)
        ledger.recordOpen(at: clock.reading, in: berlin)
        clock.pass(60)
        #expect(ledger.mayOpen(allowance, at: clock.reading, in: berlin) == .coolingDown(wait: .seconds(540)))
        clock.pass(540)
        #expect(ledger.mayOpen(allowance, at: clock.reading, in: berlin) == .allowed)
        ledger.recordOpen(at: clock.reading, in: berlin)
        clock.pass(3600)
        #expect(ledger.mayOpen(allowance, at: clock.reading, in: berlin) == .noOpensLeft(resetsAt: utc("2026-11-27T23:00:00Z")))
        clock.wall = utc("2026-11-27T23:00:00Z")
        clock.boot = ledger.day.endBoot
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.mayOpen(allowance, at: clock.reading, in: berlin) == .allowed)
    }

    @Test func validationNamesTheField() {
        #expect(throws: FieldError.self) { try Allowance(name: "x", profile: "video").validate() }
        #expect(throws: FieldError.self) { try videoTime(daily: .seconds(90_000)).validate() }
        #expect(throws: FieldError.self) { try Allowance(name: "Bad Name", profile: "video", daily: .seconds(60)).validate() }
        #expect(throws: Never.self) { try videoTime(weekly: .seconds(3600 * 5), warn: .seconds(300)).validate() }
    }
}
