import Foundation
import LockCore
import Testing

@Suite("Cron expressions")
struct CronExpressionTests {
    let utcZone = zone("UTC")

    func elapses(_ text: String, after: String, count: Int, in zone: TimeZone? = nil) throws -> [String] {
        let cron = try CronExpression(parsing: text)
        var cursor = utc(after)
        var result: [String] = []
        while result.count < count, let next = cron.nextElapse(after: cursor, in: zone ?? utcZone) {
            result.append(wallClock(next, zone ?? utcZone))
            cursor = next
        }
        return result
    }

    @Test func stepsRangesAndLists() throws {
        #expect(
            try elapses("0 8-17/2 * * 1-5", after: "2026-11-20T15:00:00Z", count: 3)
                == ["2026-11-20 16:00:00", "2026-11-23 08:00:00", "2026-11-23 10:00:00"])
        #expect(
            try elapses("*/15 * * * *", after: "2026-11-22T10:07:00Z", count: 3)
                == ["2026-11-22 10:15:00", "2026-11-22 10:30:00", "2026-11-22 10:45:00"])
        #expect(
            try elapses("5,35 9 * * *", after: "2026-11-22T09:10:00Z", count: 2)
                == ["2026-11-22 09:35:00", "2026-11-23 09:05:00"])
        #expect(
            try elapses("5/20 * * * *", after: "2026-11-22T09:30:00Z", count: 3)
                == ["2026-11-22 09:45:00", "2026-11-22 10:05:00", "2026-11-22 10:25:00"])
    }

    @Test func namesAndSundays() throws {
        #expect(
            try elapses("30 7 * jan-mar mon,wed", after: "2026-11-22T00:00:00Z", count: 2)
                == ["2027-01-04 07:30:00", "2027-01-06 07:30:00"])
        let zero = try elapses("0 12 * * 0", after: "2026-11-01T00:00:00Z", count: 3)
        #expect(zero == ["2026-11-01 12:00:00", "2026-11-08 12:00:00", "2026-11-15 12:00:00"])
        #expect(try elapses("0 12 * * 7", after: "2026-11-01T00:00:00Z", count: 3) == zero)
        #expect(try elapses("0 12 * * SUN", after: "2026-11-01T00:00:00Z", count: 3) == zero)
        #expect(
            try elapses("0 12 * * 5-7", after: "2026-11-19T00:00:00Z", count: 4)
                == ["2026-11-20 12:00:00", "2026-11-21 12:00:00", "2026-11-22 12:00:00", "2026-11-27 12:00:00"])
    }

    @Test func dayOfMonthOrDayOfWeekWhenBothRestricted() throws {
        // The 13th of any month OR any Friday.
        let either = try CronExpression(parsing: "0 12 13 * fri")
        #expect(either.calendarEquivalent == nil)
        #expect(
            try elapses("0 12 13 * fri", after: "2026-11-01T00:00:00Z", count: 5)
                == ["2026-11-06 12:00:00", "2026-11-13 12:00:00", "2026-11-20 12:00:00", "2026-11-27 12:00:00", "2026-12-04 12:00:00"])
        #expect(
            try elapses("0 12 13 * fri", after: "2026-12-05T00:00:00Z", count: 2)
                == ["2026-12-11 12:00:00", "2026-12-13 12:00:00"])
        // With one of them `*` (or starting with `*`, as Vixie cron decides) both must match.
        #expect(try CronExpression(parsing: "0 12 13 * *").calendarEquivalent == "*-*-13 12:00:00")
        #expect(try CronExpression(parsing: "0 12 * * fri").calendarEquivalent == "Fri *-*-* 12:00:00")
        #expect(
            try elapses("0 0 */10 * 1", after: "2026-01-01T00:00:00Z", count: 2)
                == ["2026-05-11 00:00:00", "2026-06-01 00:00:00"])
    }

    @Test func shorthands() throws {
        #expect(try CronExpression(parsing: "@hourly").calendarEquivalent == "*-*-* *:00:00")
        #expect(try CronExpression(parsing: "@daily").calendarEquivalent == "*-*-* 00:00:00")
        #expect(try CronExpression(parsing: "@weekly").calendarEquivalent == "Sun *-*-* 00:00:00")
        #expect(try CronExpression(parsing: "@monthly").calendarEquivalent == "*-*-01 00:00:00")
        #expect(try CronExpression(parsing: "@yearly").calendarEquivalent == "*-01-01 00:00:00")
        #expect(try CronExpression(parsing: "@annually").text == "@annually")
    }

    @Test func equivalentsMatchCalendarExpressions() throws {
        for text in ["0 8-17/2 * * 1-5", "*/15 * * * *", "0 0 1 * *", "45 23 31 * *", "0 9 * jan-mar mon", "0 0 29 2 *"] {
            let cron = try CronExpression(parsing: text)
            let spec = try CalendarSpec(parsing: try #require(cron.calendarEquivalent))
            let berlin = zone("Europe/Berlin")
            var cursor = utc("2026-03-01T00:00:00Z")
            for _ in 0..<50 {
                let fromCron = cron.nextElapse(after: cursor, in: berlin)
                #expect(fromCron == spec.nextElapse(after: cursor, in: berlin), "\(text)")
                guard let next = fromCron else { break }
                cursor = next
            }
        }
    }

    @Test func dstFollowsSystemdRules() throws {
        // 30 2 * * * skips the spring-forward day and fires once on the fall-back day.
        let berlin = zone("Europe/Berlin")
        #expect(try elapses("30 2 * * *", after: "2027-03-27T12:00:00Z", count: 1, in: berlin) == ["2027-03-29 02:30:00"])
        let fallBack = try CronExpression(parsing: "30 2 * * *")
        #expect(fallBack.nextElapse(after: utc("2026-10-24T12:00:00Z"), in: berlin) == utc("2026-10-25T00:30:00Z"))
        #expect(fallBack.nextElapse(after: utc("2026-10-25T00:30:00Z"), in: berlin) == utc("2026-10-26T01:30:00Z"))
    }

    @Test func textIsKeptAsTyped() throws {
        let cron = try CronExpression(parsing: "  0   9 * *  mon-fri ")
        #expect(cron.text == "0 9 * * mon-fri")
        #expect(cron.description == "0 9 * * mon-fri")
        let data = try JSONEncoder().encode(cron)
        #expect(try JSONDecoder().decode(CronExpression.self, from: data) == cron)
    }
}
