import Foundation

/// The one way times are written for people: `15:42` today, `Mon 09:00` within a week,
/// `2027-01-15 08:00` beyond, in a given zone and relative to a given now (both passed in, so
/// messages follow the injected clock).
public enum ClockText {
    /// `date` as seen from `now` in `zone`.
    public static func time(_ date: Date, now: Date, zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        if calendar.isDate(date, inSameDayAs: now) {
            formatter.dateFormat = "HH:mm"
        } else if abs(date.timeIntervalSince(now)) < 6 * 86_400 {
            formatter.dateFormat = "EEE HH:mm"
        } else {
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
        }
        return formatter.string(from: date)
    }
}
