import Foundation
import LockCore
import Testing

/// DST in both directions, in both hemispheres and with a 30-minute shift. The rule is
/// systemd's: a start inside a spring-forward gap is skipped, a repeated start time starts once
/// (first occurrence); window ends are never skipped.
@Suite("Daylight saving time")
struct DaylightSavingTests {
    let berlin = zone("Europe/Berlin")
    let newYork = zone("America/New_York")
    let sydney = zone("Australia/Sydney")
    let lordHowe = zone("Australia/Lord_Howe")

    func starts(_ expression: String, after: String, count: Int, in zone: TimeZone) throws -> [Date] {
        try CalendarSpec(parsing: expression).nextElapses(after: utc(after), count: count, in: zone)
    }

    @Test func springForwardSkipsStartsInTheGap() throws {
        // Berlin 2027-03-28: 02:00 CET → 03:00 CEST, so 02:30 does not exist that day.
        #expect(
            try starts("*-*-* 02:30", after: "2027-03-27T12:00:00Z", count: 2, in: berlin)
                == [utc("2027-03-29T00:30:00Z"), utc("2027-03-30T00:30:00Z")])
        // New York 2026-03-08: 02:00 EST → 03:00 EDT.
        #expect(
            try starts("*-*-* 02:30", after: "2026-03-07T12:00:00Z", count: 2, in: newYork)
                == [utc("2026-03-09T06:30:00Z"), utc("2026-03-10T06:30:00Z")])
        // Sydney 2026-10-04 (southern spring): 02:00 AEST → 03:00 AEDT.
        #expect(
            try starts("*-*-* 02:30", after: "2026-10-02T12:00:00Z", count: 2, in: sydney)
                == [utc("2026-10-02T16:30:00Z"), utc("2026-10-04T15:30:00Z")])
        // Lord Howe 2026-10-04: 02:00 → 02:30, a 30-minute gap; 02:15 is skipped, 02:45 is not.
        #expect(
            try starts("*-*-* 02:15,45", after: "2026-10-03T12:00:00Z", count: 3, in: lordHowe)
                == [utc("2026-10-03T15:45:00Z"), utc("2026-10-04T15:15:00Z"), utc("2026-10-04T15:45:00Z")])
        // A repetition carries on after the gap rather than stopping for the day.
        #expect(
            try starts("*:0/20", after: "2027-03-28T00:30:00Z", count: 3, in: berlin)
                == [utc("2027-03-28T00:40:00Z"), utc("2027-03-28T01:00:00Z"), utc("2027-03-28T01:20:00Z")])
    }

    @Test func fallBackStartsOnceAtTheFirstOccurrence() throws {
        // Berlin 2026-10-25: 03:00 CEST → 02:00 CET; 02:30 happens at 00:30Z and at 01:30Z.
        #expect(
            try starts("*-*-* 02:30", after: "2026-10-24T12:00:00Z", count: 2, in: berlin)
                == [utc("2026-10-25T00:30:00Z"), utc("2026-10-26T01:30:00Z")])
        // New York 2026-11-01: 02:00 EDT → 01:00 EST; 01:30 EDT is 05:30Z.
        #expect(
            try starts("*-*-* 01:30", after: "2026-10-31T12:00:00Z", count: 2, in: newYork)
                == [utc("2026-11-01T05:30:00Z"), utc("2026-11-02T06:30:00Z")])
        // Sydney 2026-04-05 (southern autumn): 03:00 AEDT → 02:00 AEST.
        #expect(
            try starts("*-*-* 02:30", after: "2026-04-04T00:00:00Z", count: 2, in: sydney)
                == [utc("2026-04-04T15:30:00Z"), utc("2026-04-05T16:30:00Z")])
        // Lord Howe 2026-04-05: 02:00 (+11) → 01:30 (+10:30); 01:45 first happens at 14:45Z.
        #expect(
            try starts("*-*-* 01:45", after: "2026-04-04T00:00:00Z", count: 2, in: lordHowe)
                == [utc("2026-04-04T14:45:00Z"), utc("2026-04-05T15:15:00Z")])
        // Every quarter hour: the repeated hour is not walked through twice.
        let quarterHours = try starts("*:0/15", after: "2026-10-25T00:20:00Z", count: 4, in: berlin)
        #expect(quarterHours == ["00:30", "00:45", "02:00", "02:15"].map { utc("2026-10-25T\($0):00Z") })
    }

    @Test func searchStartingInTheSecondPassSkipsTheRestOfIt() throws {
        // 01:10Z is 02:10 CET, the second pass through 02:00–02:59. 02:15 etc. already
        // elapsed at their first occurrence, so the next elapse is 03:00 CET. (systemd would
        // answer 02:15 CET here; see CalendarPattern.)
        #expect(
            try starts("*:0/15", after: "2026-10-25T01:10:00Z", count: 2, in: berlin)
                == [utc("2026-10-25T02:00:00Z"), utc("2026-10-25T02:15:00Z")])
        #expect(
            try starts("*-*-* 02:30", after: "2026-10-25T01:10:00Z", count: 1, in: berlin)
                == [utc("2026-10-26T01:30:00Z")])
        // The same holds for the daemon's view of a calendar rule.
        let rule = try ScheduleRule(on: "*-*-* 02:30", for: .seconds(3600))
        #expect(
            rule.activeInterval(at: utc("2026-10-25T01:10:00Z"), in: berlin)
                == DateInterval(start: utc("2026-10-25T00:30:00Z"), end: utc("2026-10-25T01:30:00Z")))
        #expect(rule.nextEdge(after: utc("2026-10-25T01:10:00Z"), in: berlin) == utc("2026-10-25T01:30:00Z"))
        #expect(rule.nextEdge(after: utc("2026-10-25T01:30:00Z"), in: berlin) == utc("2026-10-26T01:30:00Z"))
    }

    @Test func windowsAcrossSpringForward() throws {
        // A start inside the gap is skipped for that day…
        let gapStart = try ScheduleRule(days: "all", from: "02:30", to: "03:30")
        let starts = gapStart.nextIntervals(after: utc("2027-03-27T12:00:00Z"), count: 2, in: berlin).map(\.start)
        #expect(starts == [utc("2027-03-29T00:30:00Z"), utc("2027-03-30T00:30:00Z")])
        #expect(gapStart.activeInterval(at: utc("2027-03-28T01:15:00Z"), in: berlin) == nil)
        // …but an end inside the gap ends at the first instant after it.
        let gapEnd = try ScheduleRule(days: "sun", from: "01:00", to: "02:30")
        let window = try #require(gapEnd.nextIntervals(after: utc("2027-03-27T12:00:00Z"), count: 1, in: berlin).first)
        #expect(window == DateInterval(start: utc("2027-03-28T00:00:00Z"), end: utc("2027-03-28T01:00:00Z")))
        #expect(gapEnd.nextEdge(after: window.start, in: berlin) == window.end)
        // New York and Lord Howe, same rule.
        let newYorkWindow = try ScheduleRule(days: "sun", from: "01:30", to: "02:30")
            .nextIntervals(after: utc("2026-03-07T12:00:00Z"), count: 1, in: newYork).first
        #expect(newYorkWindow == DateInterval(start: utc("2026-03-08T06:30:00Z"), end: utc("2026-03-08T07:00:00Z")))
        let lordHoweWindow = try ScheduleRule(days: "sun", from: "01:00", to: "02:10")
            .nextIntervals(after: utc("2026-10-03T00:00:00Z"), count: 1, in: lordHowe).first
        #expect(lordHoweWindow == DateInterval(start: utc("2026-10-03T14:30:00Z"), end: utc("2026-10-03T15:30:00Z")))
        // An overnight window over the change is an hour shorter.
        let overnight = try ScheduleRule(days: "sat", from: "22:00", to: "07:00")
            .nextIntervals(after: utc("2027-03-27T00:00:00Z"), count: 1, in: berlin).first
        let eightHours: TimeInterval = 8 * 3600
        #expect(overnight?.duration == eightHours)
    }

    @Test func windowsAcrossFallBack() throws {
        // A repeated end time ends at its first occurrence.
        let endsInRepeat = try ScheduleRule(days: "sun", from: "01:00", to: "02:30")
            .nextIntervals(after: utc("2026-10-24T12:00:00Z"), count: 1, in: berlin).first
        #expect(endsInRepeat == DateInterval(start: utc("2026-10-24T23:00:00Z"), end: utc("2026-10-25T00:30:00Z")))
        // A repeated start time starts at its first occurrence; the window is longer by an hour.
        let startsInRepeat = try ScheduleRule(days: "sun", from: "02:30", to: "04:00")
            .nextIntervals(after: utc("2026-10-24T12:00:00Z"), count: 1, in: berlin).first
        #expect(startsInRepeat == DateInterval(start: utc("2026-10-25T00:30:00Z"), end: utc("2026-10-25T03:00:00Z")))
        // Sydney's fall-back is in April.
        let sydneyWindow = try ScheduleRule(days: "sun", from: "02:30", to: "03:30")
            .nextIntervals(after: utc("2026-04-04T00:00:00Z"), count: 1, in: sydney).first
        #expect(sydneyWindow == DateInterval(start: utc("2026-04-04T15:30:00Z"), end: utc("2026-04-04T17:30:00Z")))
        // New York: 01:30–01:45 falls in the repeated hour; it runs once, in EDT.
        let newYorkRule = try ScheduleRule(days: "sun", from: "01:30", to: "01:45")
        let newYorkWindows = newYorkRule.nextIntervals(after: utc("2026-10-31T12:00:00Z"), count: 2, in: newYork)
        #expect(newYorkWindows.first == DateInterval(start: utc("2026-11-01T05:30:00Z"), end: utc("2026-11-01T05:45:00Z")))
        #expect(newYorkWindows.last?.start == utc("2026-11-08T06:30:00Z"))
        #expect(newYorkRule.activeInterval(at: utc("2026-11-01T06:35:00Z"), in: newYork) == nil)
    }

    @Test func calendarDurationsAreAbsolute() throws {
        // 01:00 for 3 h on the spring-forward night ends at 05:00 CEST: three real hours.
        let rule = try ScheduleRule(on: "*-*-* 01:00", for: .seconds(3 * 3600))
        let interval = try #require(rule.nextIntervals(after: utc("2027-03-27T12:00:00Z"), count: 1, in: berlin).first)
        #expect(interval == DateInterval(start: utc("2027-03-28T00:00:00Z"), duration: 3 * 3600))
        #expect(wallClock(interval.end, berlin) == "2027-03-28 05:00:00")
    }

    @Test func aWindowAlwaysEnds() throws {
        // Whatever the zone and the change, every interval has a positive length and edges
        // keep advancing through a whole year of transitions.
        for zoneName in ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Pacific/Chatham"] {
            let tz = zone(zoneName)
            for (days, from, to) in [("all", "01:30", "02:30"), ("all", "02:30", "01:45"), ("all", "02:15", "02:45")] {
                let rule = try ScheduleRule(days: days, from: from, to: to)
                var cursor = utc("2026-01-01T00:00:00Z")
                var edges = 0
                while cursor < utc("2027-01-01T00:00:00Z") {
                    let next = try #require(rule.nextEdge(after: cursor, in: tz))
                    #expect(next > cursor)
                    cursor = next
                    edges += 1
                }
                #expect(edges >= 2 * 362, "\(zoneName) \(from)–\(to)")
                for interval in rule.nextIntervals(after: utc("2026-01-01T00:00:00Z"), count: 366, in: tz) {
                    #expect(interval.duration > 0, "\(zoneName) \(from)–\(to) at \(interval.start)")
                }
            }
        }
    }
}
