import Foundation
import LockCore
import Testing

/// Compares our elapses with the real `systemd-analyze calendar` over many expressions, zones
/// and base times, concentrated around DST changes.
@Suite(.enabled(if: SystemdAnalyze.isAvailable, "systemd-analyze is not installed; differential tests skipped"))
struct SystemdDifferentialTests {
    static let iterations = 15

    /// Calendar expressions without a zone; evaluated in the zone given to systemd as `TZ`.
    static let expressions = [
        "*-*-* 00:00", "Mon..Fri 09:00", "Mon..Fri *-*-* 09:00:00", "Sat,Sun 10:30", "Mon,Wed..Fri 08:15",
        "Mon-Fri 07:45", "Tue,Thu 18:00:30", "Mon..Wed,Fri..Sun 12:00", "Sun 02:30", "Sun 01:59:59",
        "*:0/15", "*:0/7", "*:*:0/20", "minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually",
        "quarterly", "semiannually", "*-*-* 8..17/2:00", "*-*-* 8..17/2:30", "*-*-* 02:30", "*-*-* 02:00",
        "*-*-* 02:59:59", "*-*-* 03:00", "*-*-* 01:30", "*-*-* 1,2,3:15", "*-*-* 2:*", "*-*-* 2:0/20",
        "*-*-* 1..3:0/20:0/30", "*-*-* 0/5:45", "*-02-29", "*-02-29 02:30", "*-*-31", "*-*~01", "*-*~03",
        "*-*~01..03", "*-*~07/2", "*-02~01", "*-*-1..31/10 12:00", "*-01,07-01 12:00", "Fri *-*-13",
        "Mon *-*-1..7 09:00", "Sun *-10-25..31 02:30", "Sun *-04-1..7 02:30",
        "Sun *-11-1..7 01:30", "2026-12-24 18:00", "2027-01-15 08:00", "2026-10-25 02:30", "2027-03-28 02:30",
        "2026-11-01 01:30", "2027..2029-06-01", "2026/2-01-01", "12:00", "*-*-01", "01-15", "27-01-15 12:00",
        "*-*-* 00:00 UTC", "Sat,Sun 09:00 America/New_York", "*-*-* 02:30 Europe/Berlin", "*:0/30 Australia/Sydney",
        "*-*-* 02:15 Australia/Lord_Howe", "*-*-* 01:30 America/New_York", "daily Asia/Tokyo",
        "*-*-* 02:00..03:00 Europe/Berlin", "@1790000000",
    ]

    /// Further expressions combined from typical parts by a seeded generator, so the set is
    /// the same on every run.
    static let generated: [String] = {
        let weekdays = ["", "Mon..Fri ", "Sat,Sun ", "Sun ", "Tue,Thu ", "Mon,Wed..Fri "]
        let dates = ["*-*-*", "*-*-1..7", "*-*~01", "*-02-29", "*-03,10-*", "*-*-1/3", "*-*-25..31", "*-04,11-*"]
        let hours = ["*", "02", "1..3", "0/5", "2,3", "8..17/3", "00", "01"]
        let minutes = ["*", "00", "30", "0/15", "5/20", "45..59/7", "15,45"]
        let seconds = ["00", "*", "0/30", "59"]
        var state: UInt64 = 0x5EED
        func pick(_ parts: [String]) -> String {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return parts[Int((state >> 33) % UInt64(parts.count))]
        }
        return (0..<40).map { _ in
            pick(weekdays) + pick(dates) + " " + pick(hours) + ":" + pick(minutes) + ":" + pick(seconds)
        }
    }()

    /// Weekly windows whose starts are compared with their `startExpression`.
    static let windows = [
        ("mon-fri", "09:00", "12:30"), ("fri-mon", "22:00", "07:00"), ("all", "02:30", "03:30"),
        ("sun", "02:00", "04:00"), ("weekends", "01:30", "02:15"), ("mon,wed,fri", "00:00", "23:59"),
        ("sat-sun", "02:15:30", "09:00"),
    ]

    /// Cron expressions with a systemd equivalent (day-of-month and day-of-week not both restricted).
    static let crons = [
        "0 8-17/2 * * 1-5", "*/15 * * * *", "30 2 * * *", "0 2 * * 0", "15 1,2,3 * * *", "0 0 1 * *",
        "0 9 * jan-mar mon", "5/20 * * * sat,sun", "0 0 29 2 *", "@daily", "@weekly", "45 23 31 * *",
    ]

    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "UTC"]

    /// Base times: ordinary ones, and just before, at, just after and well after every offset
    /// change in 2026–2027 (including inside the repeated hour after a fall-back).
    static func baseTimes(for zoneName: String) -> [Date] {
        var bases = [
            utc("2026-07-15T12:34:56Z"), utc("2026-02-28T23:59:59Z"), utc("2027-12-31T23:00:00Z"),
            utc("2026-06-30T23:59:59Z"), utc("2028-02-28T23:59:30Z"),
        ]
        for (instant, change) in transitions(of: zone(zoneName), from: utc("2026-01-01T00:00:00Z"), to: utc("2028-01-01T00:00:00Z")) {
            bases += [-3 * 3600, -1, 0, 1, 3 * 3600].map { instant + $0 }
            if change < 0 { bases.append(instant + (-change) / 2) }
        }
        return bases
    }

    /// If `instant` lies in the second pass through a repeated range of wall-clock times (after
    /// a fall-back change), the instant showing the same wall-clock time in the first pass.
    ///
    /// systemd resolves a repeated wall-clock time with the offset glibc's `mktime()` used last,
    /// so it sometimes elapses in the second pass: when the search starts inside it, and when
    /// `~` (end-of-month) arithmetic just looked at the next month, which has the later offset.
    /// Our rule is the documented one: each wall-clock time elapses once, at its first
    /// occurrence. The comparison therefore maps systemd's elapses to first occurrences (and
    /// drops those whose first occurrence is not after the base time); wall-clock times must
    /// still agree exactly.
    static func firstOccurrence(of instant: Date, in zone: TimeZone) -> Date? {
        for (transition, change) in transitions(of: zone, from: instant - 2 * 86_400, to: instant + 1) where change < 0 {
            if instant >= transition && instant < transition - change { return instant + change }
        }
        return nil
    }

    struct Case {
        var expression: String
        /// The zone named at the end of the expression, if any.
        var ownZone: String?
        var next: @Sendable (Date, TimeZone) -> Date?
    }

    static func cases() throws -> [Case] {
        var cases = try (expressions + generated).map { text in
            let spec = try CalendarSpec(parsing: text)
            return Case(expression: text, ownZone: spec.timeZoneName) { spec.nextElapse(after: $0, in: $1) }
        }
        for (days, from, to) in windows {
            let window = try WeeklyWindow(days: days, from: from, to: to)
            cases.append(Case(expression: window.startExpression) { window.nextStart(after: $0, in: $1) })
        }
        for text in crons {
            let cron = try CronExpression(parsing: text)
            let equivalent = try #require(cron.calendarEquivalent)
            cases.append(Case(expression: equivalent) { cron.nextElapse(after: $0, in: $1) })
        }
        return cases
    }

    @Test("normalized forms equal systemd's")
    func normalizedForms() throws {
        let texts = Self.expressions + Self.generated
        let results = try SystemdAnalyze.calendar(texts, base: utc("2026-07-15T12:00:00Z"), iterations: 1, zone: "UTC")
        try #require(results.count == texts.count)
        for (text, result) in zip(texts, results) {
            #expect(try CalendarSpec(parsing: text).normalizedText == result.normalized, "\(text)")
        }
        let windowStarts = try Self.windows.map { try WeeklyWindow(days: $0.0, from: $0.1, to: $0.2).startExpression }
        let cronEquivalents = try Self.crons.map { try #require(try CronExpression(parsing: $0).calendarEquivalent) }
        let derived = windowStarts + cronEquivalents
        for (text, result) in zip(
            derived, try SystemdAnalyze.calendar(derived, base: utc("2026-07-15T12:00:00Z"), iterations: 1, zone: "UTC"))
        {
            #expect(text == result.normalized, "derived expression \(text) is not in normalized form")
        }
    }

    /// Zone-less expressions run with `TZ` set to the zone under test. Expressions naming a
    /// zone run with the base times of that zone (those naming a zone outside the list with
    /// UTC's) while `TZ` is a zone with odd offsets, to show that their own zone wins.
    @Test("elapses equal systemd's", arguments: zones)
    func elapses(zoneName: String) throws {
        let all = try Self.cases()
        let zoneless = all.filter { $0.ownZone == nil }
        let named = all.filter { testCase in
            guard let own = testCase.ownZone else { return false }
            return own == zoneName || (zoneName == "UTC" && !Self.zones.contains(own))
        }
        var comparisons = 0
        var remapped = 0
        for base in Self.baseTimes(for: zoneName) {
            for (cases, tz) in [(zoneless, zoneName), (named, "Pacific/Chatham")] where !cases.isEmpty {
                let results = try SystemdAnalyze.calendar(cases.map(\.expression), base: base, iterations: Self.iterations, zone: tz)
                try #require(results.count == cases.count)
                for (testCase, result) in zip(cases, results) {
                    let effectiveZone = zone(testCase.ownZone ?? tz)
                    var expected: [Date] = []
                    for elapse in result.elapses {
                        let mapped = Self.firstOccurrence(of: elapse, in: effectiveZone) ?? elapse
                        if mapped != elapse { remapped += 1 }
                        if mapped > base && !expected.contains(mapped) { expected.append(mapped) }
                    }
                    expected.sort()
                    var ours: [Date] = []
                    var cursor = base
                    while ours.count < expected.count, let next = testCase.next(cursor, zone(tz)) {
                        ours.append(next)
                        cursor = next
                    }
                    if result.elapses.count < Self.iterations {
                        // systemd ran out of elapses; so must we.
                        #expect(
                            testCase.next(cursor, zone(tz)) == nil,
                            "\(testCase.expression) TZ=\(tz) base \(base): systemd found no more elapses")
                    }
                    comparisons += expected.count
                    #expect(
                        ours == expected,
                        """
                        \(testCase.expression) TZ=\(tz) base \(base) (\(wallClock(base, effectiveZone)))
                          systemd: \(expected.map { wallClock($0, effectiveZone) })
                          ours:    \(ours.map { wallClock($0, effectiveZone) })
                        """)
                }
            }
        }
        print(
            "systemd differential, \(zoneName): \(zoneless.count + named.count) expressions × \(Self.baseTimes(for: zoneName).count) base times, \(comparisons) elapses compared, \(remapped) of systemd's elapses were second occurrences"
        )
    }
}
