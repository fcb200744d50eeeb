import Foundation
import LockCore
import Testing

/// Every bad input is reported with its field, the value and the reason.
@Suite("Schedule error messages")
struct ScheduleErrorTests {
    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ScheduleError {
            return error.description
        } catch {
            return "not a ScheduleError: \(error)"
        }
    }

    @Test(arguments: [
        ("mon-fri", "25:00", "12:00", "from: 25:00 is not a time of day (hours 0–23)"),
        ("mon-fri", "09:60", "12:00", "from: 09:60 is not a time of day (minutes 0–59)"),
        ("mon-fri", "9am", "12:00", "from: 9am is not a time of day (expected HH:MM, e.g. 09:00)"),
        ("mon-fri", "09:00", "24:00", "to: 24:00 is not a time of day (hours 0–23)"),
        ("mon-fri", "09:00", "", "to: '' is not a time of day (expected HH:MM, e.g. 09:00)"),
        ("mon-fri", "09:00", "09:00", "to: 09:00 is the same as --from; a window needs an end different from its start"),
        ("mon-fri", "09:00", "09:00:30", "to: 09:00:30 is less than a minute after --from 09:00; a window lasts at least one minute"),
        ("", "09:00", "10:00", "days: no weekdays given (e.g. mon-fri, sat,sun, all)"),
        ("mo-fr", "09:00", "10:00", "days: mo is not a weekday (mon, tue, wed, thu, fri, sat, sun, all, weekdays, weekends)"),
        ("mon,,fri", "09:00", "10:00", "days: mon,,fri has an empty entry between commas"),
        ("mon-wed-fri", "09:00", "10:00", "days: mon-wed-fri is not a day or a range of days (e.g. mon-fri)"),
    ])
    func weeklyWindow(days: String, from: String, to: String, expected: String) {
        #expect(message { _ = try ScheduleRule(days: days, from: from, to: to) } == expected)
    }

    @Test(arguments: [
        ("*-*-* 25:00", "on: *-*-* 25:00: hour 25 out of range 0–23"),
        ("*:61", "on: *:61: minute 61 out of range 0–59"),
        ("*-13-01", "on: *-13-01: month 13 out of range 1–12"),
        ("*-*-32", "on: *-*-32: day 32 out of range 1–31"),
        ("*-*~29", "on: *-*~29: day ~29 out of range ~1–~28"),
        ("2200-01-01", "on: 2200-01-01: year 2200 out of range 1970–2199"),
        ("*:0/60", "on: *:0/60: minute 0/60: repetition /60 is longer than the range 0–59"),
        ("*:59/15", "on: *:59/15: minute 59/15 never repeats within 0–59"),
        ("*-*-* 17..8:00", "on: *-*-* 17..8:00: hour range 17..8 is empty or runs backwards"),
        ("*:*/2", "on: *:*/2: '*/N' is cron syntax; systemd writes a repetition from the start value, e.g. 0/15"),
        ("*:0/0", "on: *:0/0: a repetition of /0 never advances"),
        ("Fri..Mon 09:00", "on: Fri..Mon 09:00: weekday range Fri..Mon runs backwards (write e.g. Mon,Fri..Sun)"),
        ("Mon.. 09:00", "on: Mon.. 09:00: weekday range after Mon has no end"),
        ("Mond 09:00", "on: Mond 09:00: 'Mond…' is not a weekday"),
        ("*-*-* 00:00:00.5", "on: *-*-* 00:00:00.5: fractional seconds are not supported"),
        ("bogus", "on: bogus is not a calendar expression: unexpected 'b' at the start"),
        ("*-*-* 12:00x", "on: *-*-* 12:00x is not a calendar expression: unexpected 'x' after '*-*-* 12:00'"),
        ("*-*-* 12:", "on: *-*-* 12: is not a calendar expression: it ends too early"),
        ("Mon 09:00 Mars/Olympus", "on: Mars/Olympus in 'Mon 09:00 Mars/Olympus' is not a known time zone (e.g. Europe/Berlin, UTC)"),
        ("Mon 09:00 Berlin", "on: Berlin in 'Mon 09:00 Berlin' is not a known time zone (e.g. Europe/Berlin, UTC)"),
        ("", "on: empty calendar expression (e.g. 'Mon..Fri 09:00')"),
    ])
    func calendarExpression(text: String, expected: String) {
        #expect(message { _ = try ScheduleRule(on: text, for: .seconds(3600)) } == expected)
    }

    @Test(arguments: [
        ("61 * * * *", "cron: minute 61 out of range 0–59"),
        ("0 24 * * *", "cron: hour 24 out of range 0–23"),
        ("0 0 0 * *", "cron: day-of-month 0 out of range 1–31"),
        ("0 0 * 13 *", "cron: month 13 out of range 1–12"),
        ("0 0 * * 8", "cron: day-of-week 8 out of range 0–7"),
        ("0 0 * foo *", "cron: month 'foo' is not a number or a name such as feb"),
        ("0 17-8 * * *", "cron: hour range 17-8 runs backwards"),
        ("*/0 * * * *", "cron: minute step in '*/0' must be a positive number"),
        ("1,,2 * * * *", "cron: minute field '1,,2' has an empty or malformed item"),
        ("0 9 * *", "cron: '0 9 * *' has 4 fields; cron needs 5: minute hour day-of-month month day-of-week"),
        ("@reboot", "cron: @reboot is not a cron shorthand (@hourly, @daily, @weekly, @monthly, @yearly)"),
    ])
    func cronExpression(text: String, expected: String) {
        #expect(message { _ = try ScheduleRule(cron: text, for: .seconds(3600)) } == expected)
    }

    @Test func durationsAndZones() throws {
        #expect(message { _ = try ScheduleRule(on: "daily", for: .zero) } == "for: 0s is not a positive duration")
        #expect(message { _ = try ScheduleRule(cron: "@daily", for: .seconds(-300)) } == "for: -5m is not a positive duration")
        #expect(
            message { _ = try ScheduleRule(on: "daily", for: .seconds(400 * 86_400)) } == "for: 400d is longer than the maximum of 366d")
        #expect(
            message { _ = try ScheduleRule.timeZone(named: "Mars/Olympus") }
                == "tz: Mars/Olympus is not a known time zone (e.g. Europe/Berlin, America/New_York, UTC)")
        #expect(message { _ = try ScheduleRule.timeZone(named: "GMT+5") } != nil)
        #expect(try ScheduleRule.timeZone(named: "Europe/Berlin").identifier == "Europe/Berlin")
        #expect(try ScheduleRule.timeZone(named: "utc").secondsFromGMT() == 0)
    }

    @Test func errorsCarryFieldAndValue() {
        do {
            _ = try ScheduleRule(cron: "0 0 * * 9", for: .seconds(60))
            Issue.record("accepted a bad day-of-week")
        } catch {
            #expect(error.field == .cron)
            #expect(error.value == "9")
            #expect(error.reason == "day-of-week 9 out of range 0–7")
        }
    }
}
