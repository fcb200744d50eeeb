import Foundation
import LockCore
import TestSupport
import Testing

/// Days in a time zone, focus time per day, streaks and goals: pure, with instants given.
@Suite("Insights: days, focus time, streaks")
struct InsightsCoreTests {
    let berlin = zone("Europe/Berlin")

    private func hours(_ days: [LocalDay]) -> [Double] { days.map { $0.length / 3600 } }

    @Test func daysSplitAtLocalMidnightWith23And25HourDaysAtDSTChanges() {
        // Berlin: 2027-03-28 has 23 hours (02:00 → 03:00), 2027-10-31 has 25 (03:00 → 02:00).
        let spring = LocalDay.days(covering: DateInterval(start: utc("2027-03-27T10:00:00Z"), end: utc("2027-03-29T10:00:00Z")), in: berlin)
        #expect(spring.map(\.date) == ["2027-03-27", "2027-03-28", "2027-03-29"])
        #expect(hours(spring) == [24, 23, 24])
        #expect(spring[1].start == utc("2027-03-27T23:00:00Z"))
        #expect(spring[2].start == utc("2027-03-28T22:00:00Z"))
        let autumn = LocalDay.days(covering: DateInterval(start: utc("2027-10-30T12:00:00Z"), end: utc("2027-11-01T12:00:00Z")), in: berlin)
        #expect(autumn.map(\.date) == ["2027-10-30", "2027-10-31", "2027-11-01"])
        #expect(hours(autumn) == [24, 25, 24])
        // Days follow each other without gaps or overlaps.
        for pair in zip(autumn, autumn.dropFirst()) { #expect(pair.0.end == pair.1.start) }
    }

    @Test func aZoneThatSkipsMidnightStartsTheDayAtTheFirstExistingTime() {
        // São Paulo 2018-11-04: clocks went from 00:00 to 01:00, so that day began at 01:00 and lasted 23 hours.
        let saoPaulo = zone("America/Sao_Paulo")
        let days = LocalDay.days(covering: DateInterval(start: utc("2018-11-03T12:00:00Z"), end: utc("2018-11-05T12:00:00Z")), in: saoPaulo)
        #expect(days.map(\.date) == ["2018-11-03", "2018-11-04", "2018-11-05"])
        #expect(days[1].start == utc("2018-11-04T03:00:00Z"))
        #expect(hours(days) == [24, 23, 24])
    }

    @Test func aFullDayOfBlockingOnA23HourDayIs23HoursOfFocus() {
        let day = LocalDay.containing(utc("2027-03-28T12:00:00Z"), in: berlin)
        let focus = FocusLedger.perDay([DateInterval(start: day.start, end: day.end)], days: [day])
        #expect(focus == [82_800])
        let long = LocalDay.containing(utc("2027-10-31T12:00:00Z"), in: berlin)
        let around = DateInterval(start: long.start.addingTimeInterval(-3600), end: long.end.addingTimeInterval(3600))
        let longFocus: [Double] = FocusLedger.perDay([around], days: [long])
        #expect(longFocus == [90_000])
    }

    @Test func sessionsAcrossMidnightCountOnBothDays() {
        let days = LocalDay.days(
            covering: DateInterval(start: utc("2027-06-01T00:00:00Z"), end: utc("2027-06-03T00:00:00Z")), in: zone("UTC"))
        let focus = FocusLedger.perDay([DateInterval(start: utc("2027-06-01T22:00:00Z"), end: utc("2027-06-02T02:30:00Z"))], days: days)
        #expect(focus == [7200, 9000])
    }

    @Test func overlappingBlocksCountOnce() {
        let days = LocalDay.days(
            covering: DateInterval(start: utc("2027-06-01T00:00:00Z"), end: utc("2027-06-02T00:00:00Z")), in: zone("UTC"))
        let spans = [
            DateInterval(start: utc("2027-06-01T09:00:00Z"), end: utc("2027-06-01T11:00:00Z")),  // a schedule
            DateInterval(start: utc("2027-06-01T10:00:00Z"), end: utc("2027-06-01T12:00:00Z")),  // a manual block inside and after it
            DateInterval(start: utc("2027-06-01T10:30:00Z"), end: utc("2027-06-01T10:55:00Z")),  // a Pomodoro phase inside both
            DateInterval(start: utc("2027-06-01T12:00:00Z"), end: utc("2027-06-01T12:30:00Z")),  // touching the end
            DateInterval(start: utc("2027-06-01T15:00:00Z"), end: utc("2027-06-01T15:00:00Z")),  // empty
        ]
        let total: [Double] = FocusLedger.perDay(spans, days: days)
        #expect(total == [12_600])
        #expect(FocusLedger.union(spans).count == 1)
    }

    @Test func instantsAreCountedOnTheirLocalDay() {
        let days = LocalDay.days(covering: DateInterval(start: utc("2027-03-27T00:00:00Z"), end: utc("2027-03-30T00:00:00Z")), in: berlin)
        // 22:30 UTC on the 27th is 23:30 in Berlin (the 27th); 23:30 UTC is 00:30 on the 28th.
        let counts = FocusLedger.countPerDay(
            [utc("2027-03-27T22:30:00Z"), utc("2027-03-27T23:30:00Z"), utc("2031-01-01T00:00:00Z")], days: days)
        #expect(counts.prefix(3) == [1, 1, 0])
        #expect(FocusLedger.dayIndex(of: utc("2020-01-01T00:00:00Z"), in: days) == nil)
    }

    @Test func todayDoesNotBreakAStreakUntilItIsOver() {
        let h = 3600.0
        // Oldest first; the last is today.
        #expect(Streak.current([4 * h, 4 * h, 1 * h, 4 * h, 4 * h, 2 * h], goal: 3 * h) == (2, false, false))
        #expect(Streak.current([4 * h, 4 * h, 1 * h, 4 * h, 4 * h, 3 * h], goal: 3 * h) == (3, true, false))
        #expect(Streak.current([4 * h, 1 * h, 0], goal: 3 * h) == (0, false, false))
        // Every day met: earlier days may extend it.
        #expect(Streak.current([3 * h, 5 * h, 0], goal: 3 * h) == (2, false, true))
        #expect(Streak.current([5 * h], goal: 0) == (0, false, false))
        #expect(Streak.longest([4 * h, 4 * h, 1 * h, 4 * h, 4 * h, 4 * h, 0], goal: 3 * h) == 3)
    }
}

/// Emergency access: challenges, the weekly allowance, friction layering, collapsing repeats.
@Suite("Insights: friction and attempts")
struct FrictionTests {
    let start = ClockReading(wall: utc("2027-06-01T12:00:00Z"), boot: BootTime(seconds: 1000), bootID: "boot-a")

    private func later(_ seconds: Double, _ from: ClockReading? = nil) -> ClockReading {
        var reading = from ?? start
        reading.boot = reading.boot + .seconds(seconds)
        reading.wall = reading.wall.addingTimeInterval(seconds)
        return reading
    }

    private func challenge(_ policy: FrictionPolicy = FrictionPolicy(delay: .seconds(60), typing: 40, perWeek: 1)) -> UnlockChallenge {
        var random = SplitMix64(state: 7)
        return UnlockChallenge(id: "c1", session: "s1", policy: policy, now: start, using: &random)
    }

    @Test func theTextAvoidsLookAlikesAndIsShownInGroups() {
        var random = SplitMix64(state: 1)
        for _ in 0..<50 {
            let text = UnlockChallenge(id: "c", session: "s", policy: FrictionPolicy(typing: 60), now: start, using: &random).text
            #expect(text.count == 60)
            #expect(!text.contains { "O0Il1".contains($0) })
        }
        let shown = challenge().display
        #expect(shown.components(separatedBy: " · ").map(\.count) == [5, 5, 5, 5, 5, 5, 5, 5])
        #expect(shown.replacingOccurrences(of: " · ", with: "") == challenge().text)
    }

    @Test func answersCountOnlyAfterTheWaitAndWithTheRightText() {
        let challenge = challenge()
        #expect(challenge.check(challenge.text, at: later(59)) == .tooEarly(remaining: .seconds(1)))
        #expect(challenge.check(challenge.text, at: later(60)) == .accepted)
        #expect(challenge.check(String(challenge.text.dropLast()) + "x", at: later(61)) == .wrong)
        // Spaces are ignored; the separators shown are not typed, so sending them means a paste.
        #expect(challenge.check(challenge.display.replacingOccurrences(of: " · ", with: " "), at: later(61)) == .accepted)
        #expect(challenge.check(challenge.display, at: later(61)) == .pasted)
        #expect(challenge.check(challenge.text, at: later(60 + 600)) == .expired)
    }

    @Test func movingTheWallClockDoesNotShortenTheWaitAndARebootVoidsIt() {
        let challenge = challenge()
        var moved = later(5)
        moved.wall = moved.wall.addingTimeInterval(86_400)
        #expect(challenge.check(challenge.text, at: moved) == .tooEarly(remaining: .seconds(55)))
        var rebooted = later(120)
        rebooted.bootID = "boot-b"
        #expect(challenge.check(challenge.text, at: rebooted) == .expired)
    }

    @Test func theAllowanceCountsARolling7DaysOnAClockNobodyCanMove() {
        let policy = FrictionPolicy(perWeek: 1)
        let record = UnlockRecord(session: "s1", profile: "focus", at: start.wall, boot: start.boot, bootID: "boot-a")
        #expect(!EmergencyAllowance.status([record], policy: policy, at: later(3 * 86_400)).allowsAnother)
        #expect(EmergencyAllowance.status([record], policy: policy, at: later(3 * 86_400)).nextFree == utc("2027-06-08T12:00:00Z"))
        #expect(EmergencyAllowance.status([record], policy: policy, at: later(7 * 86_400)).allowsAnother)
        // The wall clock moved a week ahead within the same boot frees nothing.
        var moved = later(60)
        moved.wall = moved.wall.addingTimeInterval(8 * 86_400)
        #expect(EmergencyAllowance.status([record], policy: policy, at: moved).used == 1)
        // After a reboot, wall time counts only while the clock is synchronised.
        var rebooted = ClockReading(
            wall: start.wall.addingTimeInterval(8 * 86_400), boot: BootTime(seconds: 5), bootID: "boot-b",
            wallIsSynchronised: false)
        #expect(EmergencyAllowance.status([record], policy: policy, at: rebooted).used == 1)
        rebooted.wallIsSynchronised = true
        #expect(EmergencyAllowance.status([record], policy: policy, at: rebooted).used == 0)
        // Two allowed: the second early end is still allowed, a third is not.
        let two = FrictionPolicy(perWeek: 2)
        #expect(EmergencyAllowance.status([record], policy: two, at: later(60)).allowsAnother)
        let second = UnlockRecord(session: "s2", profile: "focus", at: later(86_400).wall, boot: later(86_400).boot, bootID: "boot-a")
        let status = EmergencyAllowance.status([second, record], policy: two, at: later(2 * 86_400))
        #expect(!status.allowsAnother)
        #expect(status.nextFree == utc("2027-06-08T12:00:00Z"))
    }

    @Test func frictionKeysComeFromTheProfileThenTheConfigurationThenTheDefaults() {
        #expect(FrictionSettings.resolve(profile: nil, configuration: nil) == .strict)
        #expect(!FrictionSettings.resolve(profile: nil, configuration: nil).allowsUnlocking)
        let configuration = FrictionSettings(delay: .seconds(30), perWeek: 2)
        #expect(
            FrictionSettings.resolve(profile: nil, configuration: configuration)
                == FrictionPolicy(delay: .seconds(30), typing: 40, perWeek: 2))
        #expect(
            FrictionSettings.resolve(profile: FrictionSettings(typing: 10, perWeek: 0), configuration: configuration)
                == FrictionPolicy(delay: .seconds(30), typing: 10, perWeek: 0))
        #expect(FrictionSettings.resolve(profile: FrictionSettings(), configuration: nil) == FrictionPolicy())
    }

    @Test func repeatsOfTheSameNameFromTheSameClientWithin10sAreOneAttempt() {
        var collapser = AttemptCollapser()
        let t0 = BootTime(seconds: 100)
        do {
            let admitted = collapser.admit("site reddit.com 127.0.0.1", at: t0)
            #expect(admitted)
        }
        do {
            let admitted = collapser.admit("site reddit.com 127.0.0.1", at: t0 + .seconds(3))
            #expect(!admitted)
        }
        do {
            let admitted = collapser.admit("site reddit.com 127.0.0.1", at: t0 + .milliseconds(9_999))
            #expect(!admitted)
        }
        do {
            let admitted = collapser.admit("site reddit.com ::1", at: t0 + .seconds(3))
            #expect(admitted)
        }
        do {
            let admitted = collapser.admit("site www.reddit.com 127.0.0.1", at: t0 + .seconds(3))
            #expect(admitted)
        }
        do {
            let admitted = collapser.admit("site reddit.com 127.0.0.1", at: t0 + .seconds(10))
            #expect(admitted)
        }
        // Bounded: old keys are forgotten rather than growing memory.
        var small = AttemptCollapser(capacity: 4)
        for index in 0..<100 {
            let admitted = small.admit("k\(index)", at: t0 + .seconds(Double(index)))
            #expect(admitted)
        }
    }
}

/// Only stricter edits while a strict block runs.
@Suite("Insights: what an edit takes away")
struct WeakeningTests {
    private func rules(_ block: [String], allow: [String] = [], addresses: [String] = [], mode: ProfileMode = .blocklist) -> BlockRules {
        BlockRules(block: DomainSet(block), allow: DomainSet(allow), addresses: addresses.map { try! IPNetwork(parsing: $0) }, mode: mode)
    }

    @Test func removingRulesAddingExceptionsAndTurningStrictOffWeaken() {
        let old = rules(["reddit.com", "x.com"], addresses: ["203.0.113.0/24"])
        #expect(old.weakenings(to: rules(["reddit.com"], addresses: ["203.0.113.0/24"])) == ["unblocks x.com"])
        #expect(
            old.weakenings(to: rules(["reddit.com", "x.com"], allow: ["old.reddit.com"], addresses: ["203.0.113.0/24"]))
                == ["allows old.reddit.com"])
        #expect(old.weakenings(to: rules(["reddit.com", "x.com"])) == ["unblocks 203.0.113.0/24"])
        #expect(old.weakenings(to: rules(["reddit.com", "x.com"], mode: .allowlist)) == ["changes the mode from blocklist to allowlist"])
        let profile = Profile(name: "focus", strict: true)
        var loosened = profile
        loosened.strict = false
        #expect(profile.weakenings(to: loosened, rules: old, newRules: old) == ["turns strict off"])
    }

    @Test func removingAppsCategoriesOrListsWeakens() throws {
        let steam = BlockedApp(id: "steam", name: "Steam", executables: ["/usr/games/steam"])
        let ads = BlocklistReference(name: "ads", version: "0123456789abcdef")
        let old = BlockRules(block: DomainSet(["x.com"]), apps: [steam], lists: [ads])
        #expect(old.weakenings(to: BlockRules(block: DomainSet(["x.com"]), lists: [ads])) == ["unblocks app steam"])
        #expect(old.weakenings(to: BlockRules(block: DomainSet(["x.com"]), apps: [steam])) == ["unblocks list ads"])
        // A newer version of the same list is not a weakening.
        let newer = BlocklistReference(name: "ads", version: "fedcba9876543210")
        #expect(old.weakenings(to: BlockRules(block: DomainSet(["x.com"]), apps: [steam], lists: [newer])).isEmpty)
        var profile = Profile(name: "focus", strict: true)
        profile.appCategories = [try AppCategory(parsing: "Game")]
        var loosened = profile
        loosened.appCategories = []
        #expect(profile.weakenings(to: loosened, rules: old, newRules: old) == ["unblocks app category Game"])
    }

    @Test func addingRulesOrReplacingOneWithABroaderOneIsStricter() {
        let old = rules(["news.example.com"], allow: ["music.example.com"], addresses: ["203.0.113.5"])
        #expect(old.weakenings(to: rules(["news.example.com", "y.com"], allow: ["music.example.com"], addresses: ["203.0.113.5"])).isEmpty)
        #expect(old.weakenings(to: rules(["example.com"], allow: ["music.example.com"], addresses: ["203.0.113.0/24"])).isEmpty)
        // Removing an exception blocks more.
        #expect(old.weakenings(to: rules(["news.example.com"], addresses: ["203.0.113.5"])).isEmpty)
    }

    @Test func anAllowlistWeakensByAllowingMore() {
        let old = rules(["docs.example"], addresses: ["198.51.100.1"], mode: .allowlist)
        #expect(
            old.weakenings(to: rules(["docs.example", "chat.example"], addresses: ["198.51.100.1"], mode: .allowlist)) == [
                "allows chat.example"
            ])
        #expect(old.weakenings(to: rules([], mode: .allowlist)).isEmpty)
        #expect(old.weakenings(to: rules(["docs.example"], addresses: ["198.51.100.0/24"], mode: .allowlist)) == ["allows 198.51.100.0/24"])
    }
}
