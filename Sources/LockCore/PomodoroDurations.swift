import Foundation

/// Conversions and compact text for the durations pomodoro values carry.
///
/// Internal on purpose: the rest of LockCore has its own duration parsing, and this keeps the
/// pomodoro files from adding a second public formatter.
enum PomodoroDurations {
    static let nanosecondsPerSecond: Int64 = 1_000_000_000

    /// A duration from floating-point seconds (the unit of the JSON forms). Saturates instead of
    /// trapping, because the input may come from a file or from a wall clock that jumped.
    static func fromSeconds(_ seconds: Double) -> Duration {
        if seconds.isNaN { return .zero }
        let ns = (seconds * 1e9).rounded()
        if ns >= 9.2e18 { return .nanoseconds(Int64.max) }
        if ns <= -9.2e18 { return .nanoseconds(Int64.min) }
        return .nanoseconds(Int64(ns))
    }

    /// The wall time from `earlier` to `later` as a duration (negative if the clock went back).
    static func between(_ earlier: Date, _ later: Date) -> Duration {
        fromSeconds(later.timeIntervalSince(earlier))
    }

    /// Whole seconds, rounded up, so that "0s left" is only shown when nothing is left.
    static func ceilingSeconds(_ d: Duration) -> Int64 {
        let ns = d.nanosecondsClamped
        if ns <= 0 { return 0 }
        return ns / nanosecondsPerSecond + (ns % nanosecondsPerSecond == 0 ? 0 : 1)
    }

    /// Compact text such as "25m", "1h30m", "12m5s", "0s", "0.5s" or "-5s"; the same style the
    /// command line accepts, so an error message can be pasted back corrected.
    static func text(_ d: Duration) -> String {
        let ns = d.nanosecondsClamped
        if ns < 0 {
            return "-" + text(.nanoseconds(ns == .min ? .max : -ns))
        }
        let whole = ns / nanosecondsPerSecond
        let fraction = ns % nanosecondsPerSecond
        let hours = whole / 3600
        let minutes = whole % 3600 / 60
        let seconds = whole % 60
        var out = ""
        if hours > 0 { out += "\(hours)h" }
        if minutes > 0 { out += "\(minutes)m" }
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            out += "\(seconds).\(digits)s"
        } else if seconds > 0 || out.isEmpty {
            out += "\(seconds)s"
        }
        return out
    }
}
