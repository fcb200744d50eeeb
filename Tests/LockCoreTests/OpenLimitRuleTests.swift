import Foundation
import LockCore
import Testing

/// Open limits on an injected clock: what a launch is, each launch's decision and what it says,
/// what status shows, reboots and the day's reset.
@Suite("Open limits: launches, decisions, refusals")
struct OpenLimitRuleTests {
    let berlin = zone("Europe/Berlin")

    /// Both clocks, moved together.
    struct Clock {
        var wall: Date
        var boot = BootTime(nanoseconds: 7_200_000_000_000)
        var bootID = "boot-1"
        var synchronised = true

        var reading: ClockReading { ClockReading(wall: wall, boot: boot, bootID: bootID, wallIsSynchronised: synchronised) }

        mutating func pass(_ seconds: Double) {
            wall += seconds
            boot = boot + .seconds(seconds)
        }
    }

    @Test func aLaunchIsAnExecWhileNoProcessOfTheAppRunsForThatUser() {
        // Nothing runs: a launch.
        #expect(LaunchRule.isLaunch(by: 1000, runningFor: []))
        // The user's own instance runs: its helpers, child execs and a second window are not launches.
        #expect(!LaunchRule.isLaunch(by: 1000, runningFor: [1000]))
        // Another user's instance counts nothing for this one.
        #expect(LaunchRule.isLaunch(by: 1000, runningFor: [0, 1001]))
    }

    @Test func countedAppsMergeByIDAndAStrictAllowanceMakesThemStrict() {
        let merged = CountedApp.union([
            CountedApp(id: "steam", executables: ["/usr/games/steam"], allowances: ["evenings"], strict: false),
            CountedApp(id: "minetest", executables: ["/usr/games/minetest"], allowances: ["evenings"], strict: false),
            CountedApp(id: "steam", executables: ["/usr/lib/steam/steam", "/usr/games/steam"], allowances: ["kids"], strict: true),
        ])
        #expect(merged.map(\.id) == ["minetest", "steam"])
        #expect(merged[1].executables == ["/usr/games/steam", "/usr/lib/steam/steam"])
        #expect(merged[1].allowances == ["evenings", "kids"])
        #expect(merged[1].strict && !merged[0].strict)
        // The desired block carries them, sorted, and survives a round trip through its saved form.
        let block = DesiredBlock(counted: merged.reversed())
        #expect(block.counted == merged)
        #expect(block.isEmpty, "counted apps are not blocked")
        let decoded = try? JSONDecoder().decode(DesiredBlock.self, from: JSONEncoder().encode(block))
        #expect(decoded == block)
    }

    @Test func refusalsSayWhichLimitAndWhenTheAppComesBack() throws {
        var clock = Clock(wall: utc("2026-11-27T18:00:00Z"))  // 19:00 in Berlin
        let gaming = Allowance(name: "gaming", profile: "games", opens: 2, cooldown: .seconds(3600))
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        #expect(OpenRefusal(ledger.mayOpen(gaming, at: clock.reading, in: berlin), allowance: gaming, now: clock.wall) == nil)
        #expect(ledger.opensLeft(gaming) == 2 && ledger.cooldownLeft(gaming, at: clock.reading, in: berlin) == nil)
        ledger.recordOpen(at: clock.reading, in: berlin)
        clock.pass(18 * 60)
        let cooling = try #require(OpenRefusal(ledger.mayOpen(gaming, at: clock.reading, in: berlin), allowance: gaming, now: clock.wall))
        #expect(cooling.reason == .coolingDown && cooling.wait == .seconds(42 * 60))
        #expect(cooling.until == utc("2026-11-27T19:00:00Z") && cooling.allowance == "gaming" && cooling.profile == "games")
        #expect(ledger.opensLeft(gaming) == 1 && ledger.cooldownLeft(gaming, at: clock.reading, in: berlin) == .seconds(42 * 60))
        clock.pass(42 * 60)
        ledger.recordOpen(at: clock.reading, in: berlin)
        clock.pass(2 * 3600)
        let none = try #require(OpenRefusal(ledger.mayOpen(gaming, at: clock.reading, in: berlin), allowance: gaming, now: clock.wall))
        // Back at local midnight (23:00 UTC), whatever the cooldown says.
        #expect(none.reason == .noOpensLeft && none.until == utc("2026-11-27T23:00:00Z") && none.wait == nil)
        #expect(ledger.opensLeft(gaming) == 0 && ledger.cooldownLeft(gaming, at: clock.reading, in: berlin) == nil)
        #expect(ledger.resetsAt(gaming) == utc("2026-11-27T23:00:00Z"), "launches come back with the day, not the week")
    }

    @Test func launchesUsedSurviveARebootAndAWallClockMovedForwardDoesNotEndTheDay() {
        var clock = Clock(wall: utc("2026-11-27T10:00:00Z"))
        let once = Allowance(name: "once", profile: "games", opens: 1)
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        ledger.recordOpen(at: clock.reading, in: berlin)
        // Saved and restored across a reboot later the same day.
        let saved = try? JSONDecoder().decode(AllowanceLedger.self, from: JSONEncoder().encode(ledger))
        var restored = saved ?? ledger
        clock = Clock(wall: utc("2026-11-27T12:00:00Z"), boot: BootTime(nanoseconds: 40_000_000_000), bootID: "boot-2")
        restored.advance(to: clock.reading, in: berlin)
        #expect(restored.mayOpen(once, at: clock.reading, in: berlin) == .noOpensLeft(resetsAt: utc("2026-11-27T23:00:00Z")))
        // The wall clock moved to tomorrow on the same boot does not end the day: the boot clock decides.
        clock.wall = utc("2026-11-28T09:00:00Z")
        restored.advance(to: clock.reading, in: berlin)
        #expect(restored.opensToday == 1)
        // Once the boot clock reaches local midnight, the day's launches come back.
        clock.boot = restored.day.endBoot
        restored.advance(to: clock.reading, in: berlin)
        #expect(restored.opensToday == 0 && restored.mayOpen(once, at: clock.reading, in: berlin) == .allowed)
    }

    @Test func aCooldownAcrossARebootCountsWallTimeOnlyWhenSynchronised() {
        var clock = Clock(wall: utc("2026-11-27T10:00:00Z"))
        let pause = Allowance(name: "pause", profile: "games", cooldown: .seconds(1800))
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        ledger.recordOpen(at: clock.reading, in: berlin)
        // Rebooted ten minutes later with a clock that cannot be trusted: the cooldown starts over.
        clock = Clock(
            wall: utc("2026-11-27T10:10:00Z"), boot: BootTime(nanoseconds: 20_000_000_000), bootID: "boot-2", synchronised: false)
        ledger.advance(to: clock.reading, in: berlin)
        #expect(ledger.mayOpen(pause, at: clock.reading, in: berlin) == .coolingDown(wait: .seconds(1800)))
        // Synchronised: the ten minutes count.
        clock.synchronised = true
        #expect(ledger.mayOpen(pause, at: clock.reading, in: berlin) == .coolingDown(wait: .seconds(1200)))
    }

    @Test func onADayTheAllowanceDoesNotApplyEveryLaunchIsAllowed() {
        // Saturday 2026-11-28 in Berlin.
        let clock = Clock(wall: utc("2026-11-28T10:00:00Z"))
        let weekdays = Allowance(name: "school", profile: "games", days: .weekdays, opens: 1)
        var ledger = AllowanceLedger(now: clock.reading, in: berlin)
        ledger.opensToday = 5
        #expect(ledger.mayOpen(weekdays, at: clock.reading, in: berlin) == .allowed)
        #expect(!weekdays.applies(on: ledger.day, in: berlin))
    }
}
