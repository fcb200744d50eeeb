import Foundation

/// Parses `--until` values: `17:30` (today, local time), `2026-11-23 17:30`, or RFC 3339.
enum TimeArgument {
    static func parse(_ text: String, now: Date = Date(), calendar: Calendar = .current) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ":")
        if parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), parts[1].count == 2 {
            guard (0...23).contains(hour), (0...59).contains(minute) else {
                throw CommandFailure(code: ExitCodes.usage, "--until: \(text) is not a time of day (HH:MM, 00:00–23:59)")
            }
            var components = calendar.dateComponents([.year, .month, .day], from: now)
            components.hour = hour
            components.minute = minute
            guard let date = calendar.date(from: components) else {
                throw CommandFailure(code: ExitCodes.usage, "--until: \(text) does not exist today")
            }
            guard date > now else {
                throw CommandFailure(
                    code: ExitCodes.usage,
                    "--until: \(text) has already passed today; give a date too, like --until '\(tomorrow(now, calendar)) \(text)'")
            }
            return date
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        for format in ["yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        if let date = ISO8601DateFormatter().date(from: trimmed) { return date }
        throw CommandFailure(code: ExitCodes.usage, "--until: \"\(text)\" is not a time (use HH:MM, 'YYYY-MM-DD HH:MM' or RFC 3339)")
    }

    private static func tomorrow(_ now: Date, _ calendar: Calendar) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: calendar.date(byAdding: .day, value: 1, to: now) ?? now)
    }
}
