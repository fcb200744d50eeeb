import Foundation
import LockCore
import Testing

@Suite("Calendar expressions")
struct CalendarSpecTests {
    let utcZone = zone("UTC")

    @Test(arguments: [
        ("Mon..Fri 9:00", "Mon..Fri *-*-* 09:00:00"),
        ("mon-fri 09:00", "Mon..Fri *-*-* 09:00:00"),
        ("Mon,Wed..Fri *-*-* 8..17/2:00", "Mon,Wed..Fri *-*-* 08..16/2:00:00"),
        ("Sat,Sun", "Sat,Sun *-*-* 00:00:00"),
        ("Mon..Sun 12:00", "*-*-* 12:00:00"),
        ("*:0/15", "*-*-* *:00/15:00"),
        ("*:*:0/20", "*-*-* *:*:00/20"),
        ("*:*:*", "*-*-* *:*:*"),
        ("minutely", "*-*-* *:*:00"),
        ("hourly", "*-*-* *:00:00"),
        ("daily", "*-*-* 00:00:00"),
        ("weekly", "Mon *-*-* 00:00:00"),
        ("monthly", "*-*-01 00:00:00"),
        ("yearly", "*-01-01 00:00:00"),
        ("annually", "*-01-01 00:00:00"),
        ("quarterly", "*-01,04,07,10-01 00:00:00"),
        ("semiannually", "*-01,07-01 00:00:00"),
        ("2027-01-15 08:00", "2027-01-15 08:00:00"),
        ("27-01-15", "2027-01-15 00:00:00"),
        ("*-*-01", "*-*-01 00:00:00"),
        ("01-15", "*-01-15 00:00:00"),
        ("12:00", "*-*-* 12:00:00"),
        ("*-*~01", "*-*~01 00:00:00"),
        ("*-*~01..03", "*-*~01..03 00:00:00"),
        ("*-*-* 1,3,1:00", "*-*-* 01,03:00:00"),
        ("*:*:5,0..30", "*-*-* *:*:00..30,05"),
        ("12:00 utc", "*-*-* 12:00:00 UTC"),
        ("Sat,Sun 10:00 Europe/Berlin", "Sat,Sun *-*-* 10:00:00 Europe/Berlin"),
        ("@1700000000", "2023-11-14 22:13:20 UTC"),
        ("  daily  ", "*-*-* 00:00:00"),
    ])
    func normalizedForm(input: String, normalized: String) throws {
        let spec = try CalendarSpec(parsing: input)
        #expect(spec.normalizedText == normalized)
        #expect(try CalendarSpec(parsing: spec.normalizedText) == spec)
    }

    @Test func trailingZoneOverridesTheScheduleZone() throws {
        let spec = try CalendarSpec(parsing: "*-*-* 09:00 Asia/Tokyo")
        #expect(spec.timeZoneName == "Asia/Tokyo")
        let next = spec.nextElapse(after: utc("2026-11-22T12:00:00Z"), in: zone("America/New_York"))
        #expect(next == utc("2026-11-23T00:00:00Z"))
        let utcSpec = try CalendarSpec(parsing: "*-*-* 09:00 UTC")
        #expect(utcSpec.nextElapse(after: utc("2026-11-22T12:00:00Z"), in: zone("Asia/Tokyo")) == utc("2026-11-23T09:00:00Z"))
    }

    @Test func leapDays() throws {
        let elapses = try CalendarSpec(parsing: "*-02-29 12:00").nextElapses(after: utc("2026-01-01T00:00:00Z"), count: 4, in: utcZone)
        #expect(elapses == ["2028", "2032", "2036", "2040"].map { utc("\($0)-02-29T12:00:00Z") })
        // 2100 is not a leap year.
        let century = try CalendarSpec(parsing: "*-02-29").nextElapses(after: utc("2096-03-01T00:00:00Z"), count: 1, in: utcZone)
        #expect(century == [utc("2104-02-29T00:00:00Z")])
    }

    @Test func monthEnds() throws {
        let thirtyFirsts = try CalendarSpec(parsing: "*-*-31").nextElapses(after: utc("2026-01-01T00:00:00Z"), count: 7, in: utcZone)
        #expect(
            thirtyFirsts.map { wallClock($0, utcZone).prefix(10) } == [
                "2026-01-31", "2026-03-31", "2026-05-31", "2026-07-31", "2026-08-31", "2026-10-31", "2026-12-31",
            ])
        let lastDays = try CalendarSpec(parsing: "*-*~01 18:00").nextElapses(after: utc("2027-12-01T00:00:00Z"), count: 4, in: utcZone)
        #expect(
            lastDays.map { wallClock($0, utcZone) } == [
                "2027-12-31 18:00:00", "2028-01-31 18:00:00", "2028-02-29 18:00:00", "2028-03-31 18:00:00",
            ])
        let lastThree = try CalendarSpec(parsing: "*-02~01..03").nextElapses(after: utc("2027-01-01T00:00:00Z"), count: 4, in: utcZone)
        #expect(lastThree.map { wallClock($0, utcZone).prefix(10) } == ["2027-02-26", "2027-02-27", "2027-02-28", "2028-02-27"])
    }

    @Test func weekdayAndDateTogether() throws {
        // systemd requires both: Friday the 13th.
        let fridays = try CalendarSpec(parsing: "Fri *-*-13").nextElapses(after: utc("2026-01-01T00:00:00Z"), count: 3, in: utcZone)
        #expect(fridays.map { wallClock($0, utcZone).prefix(10) } == ["2026-02-13", "2026-03-13", "2026-11-13"])
        // The first Monday of each month.
        let firstMondays = try CalendarSpec(parsing: "Mon *-*-1..7 09:00").nextElapses(
            after: utc("2026-11-22T00:00:00Z"), count: 2, in: utcZone)
        #expect(firstMondays == [utc("2026-12-07T09:00:00Z"), utc("2027-01-04T09:00:00Z")])
    }

    @Test func oneOffExpiresAndFarFutureSearchesEnd() throws {
        let once = try CalendarSpec(parsing: "2027-01-15 08:00")
        let berlin = zone("Europe/Berlin")
        #expect(once.nextElapse(after: utc("2026-11-22T00:00:00Z"), in: berlin) == utc("2027-01-15T07:00:00Z"))
        #expect(once.nextElapse(after: utc("2027-01-15T07:00:00Z"), in: berlin) == nil)
        // Never-matching or rare expressions give up at the year 2200.
        let impossible = try ["*-02-30", "*-04-31 12:00"].map { try CalendarSpec(parsing: $0) }
        let neverInBerlin = try CalendarSpec(parsing: "Sun *-03-25..31 02:30")  // always the gap day
        let last = try CalendarSpec(parsing: "2199-12-31 23:59:59")
        let daily = try CalendarSpec(parsing: "*-*-* 00:00")
        let rare = try CalendarSpec(parsing: "Mon *-02-29")
        for spec in impossible { #expect(spec.nextElapse(after: .now, in: utcZone) == nil) }
        #expect(neverInBerlin.nextElapse(after: utc("2026-01-01T00:00:00Z"), in: berlin) == nil)
        #expect(last.nextElapse(after: utc("2026-01-01T00:00:00Z"), in: utcZone) == utc("2199-12-31T23:59:59Z"))
        #expect(daily.nextElapse(after: utc("2199-12-31T00:00:00Z"), in: utcZone) == nil)
        #expect(rare.nextElapse(after: utc("2026-01-01T00:00:00Z"), in: utcZone) == utc("2044-02-29T00:00:00Z"))
    }

    @Test func repetitionsAndLists() throws {
        let everyTwoHours = try CalendarSpec(parsing: "*-*-* 8..17/2:00").nextElapses(
            after: utc("2026-11-22T00:00:00Z"), count: 6, in: utcZone)
        #expect(
            everyTwoHours.map { wallClock($0, utcZone).suffix(8) } == [
                "08:00:00", "10:00:00", "12:00:00", "14:00:00", "16:00:00", "08:00:00",
            ])
        let seconds = try CalendarSpec(parsing: "*:*:0/20").nextElapses(after: utc("2026-11-22T00:00:10Z"), count: 3, in: utcZone)
        #expect(seconds == [utc("2026-11-22T00:00:20Z"), utc("2026-11-22T00:00:40Z"), utc("2026-11-22T00:01:00Z")])
        let years = try CalendarSpec(parsing: "2026/2-01-01").nextElapses(after: utc("2026-06-01T00:00:00Z"), count: 2, in: utcZone)
        #expect(years == [utc("2028-01-01T00:00:00Z"), utc("2030-01-01T00:00:00Z")])
    }

    @Test func codableKeepsTheNormalizedText() throws {
        let spec = try CalendarSpec(parsing: "mon-fri 9:00 Europe/Berlin")
        let data = try JSONEncoder().encode(spec)
        #expect(String(decoding: data, as: UTF8.self) == #""Mon..Fri *-*-* 09:00:00 Europe\/Berlin""#)
        #expect(try JSONDecoder().decode(CalendarSpec.self, from: data) == spec)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CalendarSpec.self, from: Data(#""*-*-* 25:00""#.utf8)) }
    }
}
