/// A proleptic-Gregorian date and wall-clock time with no time zone attached ("local fields").
///
/// The calendar search works on these fields the way systemd works on `struct tm`: fields may
/// temporarily overflow (day 32, hour 24) and are folded back by `normalized`, like `mktime`
/// does. Arithmetic goes through "local seconds" (seconds since 1970-01-01 00:00 on the wall
/// clock), which is exact and cheap, unlike Foundation's `Calendar`.
struct CivilTime: Sendable, Hashable, Comparable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The wall-clock fields `localSeconds` seconds after 1970-01-01 00:00:00.
    init(localSeconds: Int64) {
        let days = Self.floorDivide(localSeconds, 86_400)
        let secondOfDay = Int(localSeconds - days * 86_400)
        // Howard Hinnant's civil_from_days: exact for any day count, no tables.
        let z = days + 719_468
        let era = Self.floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.init(
            year: Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)),
            month: Int(month),
            day: Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1),
            hour: secondOfDay / 3600,
            minute: secondOfDay % 3600 / 60,
            second: secondOfDay % 60)
    }

    /// Seconds since 1970-01-01 00:00:00 on the wall clock; overflowing fields carry over.
    var localSeconds: Int64 {
        let monthIndex = month - 1
        let carriedYear = year + Int(Self.floorDivide(Int64(monthIndex), 12))
        let normalizedMonth = monthIndex - (carriedYear - year) * 12 + 1
        let days = Self.daysFromCivil(year: carriedYear, month: normalizedMonth, day: 1) + Int64(day - 1)
        return days * 86_400 + Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)
    }

    /// The same instant on the wall clock with every field back in its range (what `mktime`
    /// does to `struct tm`, minus the time-zone part).
    var normalized: CivilTime { CivilTime(localSeconds: localSeconds) }

    /// The weekday of this date (fields must be normalized).
    var weekday: Weekday {
        // 1970-01-01 was a Thursday, so shifting by 3 makes Monday remainder 0.
        let shifted = Self.daysFromCivil(year: year, month: month, day: day) + 3
        return Weekday(rawValue: Int(shifted - Self.floorDivide(shifted, 7) * 7) + 1)!
    }

    /// The start of the next day.
    var nextDay: CivilTime { CivilTime(year: year, month: month, day: day + 1).normalized }

    /// The same date at `time`.
    func at(_ time: TimeOfDay) -> CivilTime {
        CivilTime(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
    }

    static func < (a: CivilTime, b: CivilTime) -> Bool { a.localSeconds < b.localSeconds }

    /// Days in `month` of `year` (Gregorian leap rules).
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given date (Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
