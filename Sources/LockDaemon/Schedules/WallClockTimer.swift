import Foundation
import LockPlatform

/// Something that wakes the scheduler at a wall-clock instant, and also whenever the wall
/// clock is set or the machine resumes from suspend (in production a timerfd on
/// `CLOCK_REALTIME` with `TFD_TIMER_CANCEL_ON_SET`).
public protocol WallClockTimer: Sendable {
    /// Arms the timer for `instant` (a past one fires at once), or for nothing but clock
    /// changes when nil.
    func arm(atWall instant: Date?)
}

extension KernelTimer: WallClockTimer {
    public func arm(atWall instant: Date?) {
        // Rounded up, plus a microsecond for the rounding of `Date`, so that the clock read
        // after waking is never before the instant.
        arm(wallNanoseconds: instant.map { Int64(($0.timeIntervalSince1970 * 1e9).rounded(.up)) + 1_000 })
    }
}
