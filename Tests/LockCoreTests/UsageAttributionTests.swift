import Foundation
import LockCore
import Testing

/// Each minute of each device goes to one item: sites over apps, then the most seconds, then
/// the first name; and minutes fall into local days of 23, 24 or 25 hours.
@Suite("Usage minutes")
struct UsageAttributionTests {
    let firefox = UsageItem(.app, "firefox", category: "web")
    let game = UsageItem(.app, "supertux", category: "game")
    let editor = UsageItem(.app, "gedit", category: "office")
    let youtube = UsageItem(.site, "youtube.com")
    let kids = UsageItem(.group, "kids")

    func sample(_ item: UsageItem, _ meter: UsageMeter = .appsActive, end: String, _ seconds: Double) -> UsageSample {
        UsageSample(item: item, meter: meter, end: utc(end), seconds: seconds)
    }

    func attribute(_ samples: [UsageSample]) -> [UsageMinute] {
        var attributor = MinuteAttributor()
        for sample in samples { attributor.add(sample) }
        return attributor.closeAll()
    }

    @Test func aSiteWinsOverTheBrowserShowingIt() {
        let minutes = attribute([
            sample(firefox, end: "2026-11-27T10:01:00Z", 60), sample(youtube, .dns, end: "2026-11-27T10:00:40Z", 30),
        ])
        #expect(minutes.map(\.item) == [youtube])
        #expect(minutes.map(\.seconds) == [30])
        #expect(minutes.map(\.meter) == [.dns])
    }

    @Test func amongAppsTheOneUsedLongestWinsAndTiesGoByName() {
        let longer = attribute([sample(game, end: "2026-11-27T10:00:40Z", 40), sample(editor, end: "2026-11-27T10:00:50Z", 50)])
        #expect(longer.map(\.item) == [editor])
        #expect(longer.map(\.seconds) == [50])
        let tie = [sample(game, end: "2026-11-27T10:01:00Z", 60), sample(firefox, end: "2026-11-27T10:01:00Z", 60)]
        #expect(attribute(tie).map(\.item) == [firefox])
        #expect(attribute(tie.reversed()).map(\.item) == [firefox], "the order meters report in changes nothing")
    }

    @Test func aSampleIsSplitAtMinuteBoundariesAndEachDeviceHasItsOwnMinute() {
        let minutes = attribute([sample(game, end: "2026-11-27T10:01:30Z", 90), sample(kids, .lanDNS, end: "2026-11-27T10:01:00Z", 60)])
        #expect(minutes.count == 3)
        #expect(minutes.filter { $0.item == game }.map(\.seconds) == [60, 30])
        #expect(minutes.filter { $0.item == kids }.map(\.seconds) == [60])
    }

    @Test func theMeterThatSawTheWinnerLongestIsNamed() {
        let minutes = attribute([
            sample(game, .appsActive, end: "2026-11-27T10:00:20Z", 20), sample(game, .appsRunning, end: "2026-11-27T10:01:00Z", 40),
        ])
        #expect(minutes.map(\.meter) == [.appsRunning])
        #expect(minutes.map(\.seconds) == [60])
    }

    @Test func overlappingReportsNeverMakeAMinuteLongerThanSixtySeconds() {
        let minutes = attribute([
            sample(game, .appsActive, end: "2026-11-27T10:01:00Z", 60), sample(game, .appsRunning, end: "2026-11-27T10:01:00Z", 60),
        ])
        #expect(minutes.map(\.seconds) == [60])
    }

    @Test func onlyClosedMinutesLeave() {
        var attributor = MinuteAttributor()
        attributor.add(sample(game, end: "2026-11-27T10:01:30Z", 90))
        let now = UsageMinute.index(of: utc("2026-11-27T10:01:30Z"))
        #expect(attributor.close(before: now).map(\.seconds) == [60])
        #expect(!attributor.isEmpty)
        #expect(attributor.closeAll().map(\.seconds) == [30])
        #expect(attributor.isEmpty)
    }

    @Test func aLateSamplesPartInAClosedMinuteIsDroppedNotSavedAgain() {
        var attributor = MinuteAttributor()
        attributor.add(sample(game, end: "2026-11-27T10:00:50Z", 50))
        #expect(attributor.close(before: UsageMinute.index(of: utc("2026-11-27T10:01:00Z"))).map(\.seconds) == [50])
        // Reaches 20 s back into the closed minute: only its 10 s after it count.
        attributor.add(sample(game, end: "2026-11-27T10:01:10Z", 20))
        let rest = attributor.closeAll()
        #expect(rest.map(\.seconds) == [10])
        #expect(rest.map(\.minute) == [UsageMinute.index(of: utc("2026-11-27T10:01:00Z"))])
    }

    @Test func badSamplesCountNothing() {
        #expect(attribute([sample(game, end: "2026-11-27T10:01:00Z", -5), sample(game, end: "2026-11-27T10:01:00Z", .nan)]).isEmpty)
    }

    /// One minute of `item` for every minute of `[from, to)`.
    func everyMinute(_ item: UsageItem, from: String, to: String) -> [UsageAmount] {
        Array(UsageMinute.index(of: utc(from))..<UsageMinute.index(of: utc(to))).map {
            UsageAmount(minute: $0, item: item, seconds: 60)
        }
    }

    @Test func daysOf23And25HoursAroundDaylightSavingChanges() {
        let berlin = zone("Europe/Berlin")
        // 2027-03-28 Berlin springs forward (23 h); 2027-10-31 falls back (25 h).
        let spring = UsageDay.sum(
            everyMinute(game, from: "2027-03-27T12:00:00Z", to: "2027-03-30T12:00:00Z"), by: .app,
            over: DateInterval(start: utc("2027-03-27T23:00:00Z"), end: utc("2027-03-29T22:00:00Z")), in: berlin)
        #expect(spring.map(\.day.date) == ["2027-03-28", "2027-03-29"])
        #expect(spring.map(\.total) == [23 * 3600, 24 * 3600])
        let autumn = UsageDay.sum(
            everyMinute(game, from: "2027-10-30T12:00:00Z", to: "2027-11-01T12:00:00Z"), by: .category,
            over: DateInterval(start: utc("2027-10-30T22:00:00Z"), end: utc("2027-11-01T12:00:00Z")), in: berlin)
        #expect(autumn.map(\.day.date) == ["2027-10-31", "2027-11-01"])
        #expect(autumn.first?.seconds == ["game": 25 * 3600])
        #expect(autumn.last?.total == 13 * 3600, "the window ends at 13:00 local, and the day is cut there")
    }

    @Test func groupingsCountOnlyTheirKind() {
        let minutes = [
            UsageAmount(minute: 0, item: game, seconds: 60),
            UsageAmount(minute: 1, item: youtube, seconds: 30),
            UsageAmount(minute: 1, item: kids, seconds: 60),
        ]
        let window = DateInterval(start: Date(timeIntervalSince1970: 0), duration: 3600)
        let utcZone = zone("UTC")
        #expect(UsageDay.sum(minutes, by: .site, over: window, in: utcZone).first?.seconds == ["youtube.com": 30])
        #expect(UsageDay.sum(minutes, by: .group, over: window, in: utcZone).first?.seconds == ["kids": 60])
        #expect(UsageDay.sum(minutes, by: .category, over: window, in: utcZone).first?.seconds == ["game": 60])
    }
}
