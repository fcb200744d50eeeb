import Foundation
import LockCore
import Testing

@Suite("Weekly windows")
struct WeeklyWindowTests {
    let berlin = zone("Europe/Berlin")

    @Test func weekdayMornings() throws {
        let rule = try ScheduleRule(days: "mon-fri", from: "09:00", to: "12:30")
        // Saturday 2026-11-21: the next windows are Monday to Friday of the following week.
        let next = rule.nextIntervals(after: utc("2026-11-21T10:00:00Z"), count: 6, in: berlin)
        #expect(
            next.map { wallClock($0.start, berlin) } == [
                "2026-11-23 09:00:00", "2026-11-24 09:00:00", "2026-11-25 09:00:00",
                "2026-11-26 09:00:00", "2026-11-27 09:00:00", "2026-11-30 09:00:00",
            ])
        #expect(next.allSatisfy { $0.duration == 3.5 * 3600 })
    }

    @Test func overnightWindowBelongsToItsStartDay() throws {
        let rule = try ScheduleRule(days: "fri", from: "22:00", to: "07:00")
        let friday = try #require(rule.nextIntervals(after: utc("2026-11-20T00:00:00Z"), count: 1, in: berlin).first)
        #expect(wallClock(friday.start, berlin) == "2026-11-20 22:00:00")
        #expect(wallClock(friday.end, berlin) == "2026-11-21 07:00:00")
        // Early Saturday is inside Friday's window; Saturday night starts nothing.
        #expect(rule.intervals(containing: utc("2026-11-21T03:00:00Z"), in: berlin) == [friday])
        #expect(rule.intervals(containing: utc("2026-11-21T22:30:00Z"), in: berlin).isEmpty)
        // A window ending on Monday morning started on a Sunday that is in the set.
        let sunday = try ScheduleRule(days: "sun", from: "23:00", to: "01:00")
        #expect(sunday.intervals(containing: utc("2026-11-22T23:30:00Z"), in: berlin).count == 1)
        #expect(sunday.intervals(containing: utc("2026-11-23T23:30:00Z"), in: berlin).isEmpty)
    }

    @Test func edgesAreStartInclusiveEndExclusive() throws {
        let rule = try ScheduleRule(days: "all", from: "09:00", to: "10:00")
        let start = utc("2026-11-23T08:00:00Z")
        let end = utc("2026-11-23T09:00:00Z")
        #expect(rule.intervals(containing: start - 0.001, in: berlin).isEmpty)
        #expect(rule.intervals(containing: start, in: berlin) == [DateInterval(start: start, end: end)])
        #expect(rule.intervals(containing: end - 0.001, in: berlin).count == 1)
        #expect(rule.intervals(containing: end, in: berlin).isEmpty)
        #expect(rule.activeInterval(at: start, in: berlin) == DateInterval(start: start, end: end))
        #expect(rule.activeInterval(at: end, in: berlin) == nil)
        // Edges: before the start, the start; inside, the end; at the end, the next day's start.
        #expect(rule.nextEdge(after: start - 1, in: berlin) == start)
        #expect(rule.nextEdge(after: start, in: berlin) == end)
        #expect(rule.nextEdge(after: end, in: berlin) == start + 86_400)
        // nextIntervals wants starts strictly after the instant.
        #expect(rule.nextIntervals(after: start, count: 1, in: berlin).first?.start == start + 86_400)
        #expect(rule.nextIntervals(after: start - 1, count: 1, in: berlin).first?.start == start)
    }

    @Test func sameWindowInAnotherZone() throws {
        let rule = try ScheduleRule(days: "mon-fri", from: "09:00", to: "17:00")
        let instant = utc("2026-11-22T12:00:00Z")
        let tokyo = try #require(rule.nextIntervals(after: instant, count: 1, in: zone("Asia/Tokyo")).first)
        let berlinWindow = try #require(rule.nextIntervals(after: instant, count: 1, in: berlin).first)
        let newYork = try #require(rule.nextIntervals(after: instant, count: 1, in: zone("America/New_York")).first)
        #expect(tokyo.start == utc("2026-11-23T00:00:00Z"))
        #expect(berlinWindow.start == utc("2026-11-23T08:00:00Z"))
        #expect(newYork.start == utc("2026-11-23T14:00:00Z"))
        // At 10:00 UTC the Berlin window is running, the Tokyo one is over, New York's not begun.
        let probe = utc("2026-11-23T10:00:00Z")
        #expect(rule.activeInterval(at: probe, in: berlin) != nil)
        #expect(rule.activeInterval(at: probe, in: zone("Asia/Tokyo")) == nil)
        #expect(rule.activeInterval(at: probe, in: zone("America/New_York")) == nil)
    }

    @Test func resumeAfterLongSuspend() throws {
        let rule = try ScheduleRule(days: "mon-fri", from: "09:00", to: "12:30")
        // The machine slept from Monday 2026-11-02 to Wednesday 2026-11-25 10:15 local.
        let wake = utc("2026-11-25T09:15:00Z")
        let active = try #require(rule.activeInterval(at: wake, in: berlin))
        #expect(wallClock(active.start, berlin) == "2026-11-25 09:00:00")
        #expect(rule.nextEdge(after: wake, in: berlin) == active.end)
        // Waking after the window: the next edge is tomorrow's start, not a missed one.
        let lateWake = utc("2026-11-25T13:00:00Z")
        #expect(rule.activeInterval(at: lateWake, in: berlin) == nil)
        #expect(rule.nextEdge(after: lateWake, in: berlin).map { wallClock($0, berlin) } == "2026-11-26 09:00:00")
    }

    @Test func canonicalTextRoundTrips() throws {
        let cases = [
            ("mon-fri", "mon-fri"), ("weekdays", "mon-fri"), ("weekends", "sat-sun"), ("sat,sun", "sat-sun"),
            ("all", "all"), ("MON,Wed,fri", "mon,wed,fri"), ("fri-mon", "fri-mon"), ("sun,mon", "sun-mon"),
            ("mon,wed,sat-sun", "wed,sat-mon"), ("tue..thu", "tue-thu"), ("monday,tuesday", "mon-tue"),
            ("sun-sat", "all"), ("wed-wed", "wed"),
        ]
        for (input, canonical) in cases {
            let set = try WeekdaySet(parsing: input)
            #expect(set.description == canonical, "\(input)")
            #expect(try WeekdaySet(parsing: canonical) == set, "\(canonical)")
        }
        #expect(try WeekdaySet(parsing: "fri-mon").days == [.monday, .friday, .saturday, .sunday])
        #expect(try WeekdaySet(parsing: "mon,wed..fri").systemdText == "Mon,Wed..Fri")
        #expect(WeekdaySet.weekends.systemdText == "Sat,Sun")
        #expect(WeekdaySet.all.systemdText == nil)
        let window = try WeeklyWindow(days: "fri-mon", from: "22:00", to: "07:00")
        #expect(window.description == "fri-mon 22:00–07:00")
        #expect(window.crossesMidnight)
        #expect(window.startExpression == "Mon,Fri..Sun *-*-* 22:00:00")
    }
}
