import LockCore
import LockPlatform

/// Something that wakes the daemon at a boot-clock deadline (a timerfd in production; the
/// service that owns the timer turns each firing into a call).
public protocol DeadlineTimer: Sendable {
    /// Arms the timer for `deadline`, or disarms it for nil.
    func arm(at deadline: BootTime?)
}
