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
}
