import CLinux
import Glibc
import LockCore

/// A one-shot timer on a kernel clock (timerfd), re-armed for each next deadline.
///
/// On `CLOCK_BOOTTIME` it fires on time after a suspend and ignores wall-clock changes, which
/// is what block ends need. On `CLOCK_REALTIME` with `cancelOnClockChange`, it also fires when
/// someone sets the wall clock, which is how schedules notice clock and time-zone changes.
public final class KernelTimer: Sendable {
    /// Which clock the timer runs on.
    public enum Clock: Sendable {
        /// Time since boot, including suspend.
        case boot
        /// Wall-clock time.
        case wall
    }

    /// Why the handler was called.
    public enum Firing: Sendable {
        /// The armed deadline passed.
        case deadline
        /// The wall clock was set (only with `cancelOnClockChange`).
        case clockChanged
    }

    private let fd: Int32
    private let clock: Clock
    private let cancelOnClockChange: Bool
    private let thread: WakeupThread

    /// Creates a disarmed timer whose `handler` runs on a dedicated thread.
    public init(
        name: String, clock: Clock, cancelOnClockChange: Bool = false,
        handler: @escaping @Sendable (Firing) -> Void
    ) throws(SystemError) {
        let fd = timerfd_create(clock == .boot ? CLOCK_BOOTTIME : CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard fd >= 0 else { throw SystemError("timerfd_create", name) }
        self.fd = fd
        self.clock = clock
        self.cancelOnClockChange = cancelOnClockChange
        thread = WakeupThread(name: name, fd: fd) {
            var expirations: UInt64 = 0
            let n = read(fd, &expirations, 8)
            if n == 8 { handler(.deadline) } else if n < 0, errno == ECANCELED { handler(.clockChanged) }
        }
        if cancelOnClockChange { arm(nanoseconds: Int64.max / 2) }
    }

    /// Arms the timer for an absolute boot-clock deadline (a past one fires at once), or
    /// disarms it for nil.
    public func arm(at deadline: BootTime?) {
        precondition(clock == .boot)
        guard let deadline else { return disarm() }
        arm(nanoseconds: max(1, deadline.nanoseconds))
    }

    /// Arms the timer for an absolute wall-clock instant given in nanoseconds since the epoch,
    /// or disarms it for nil (a wall timer with `cancelOnClockChange` stays armed far in the
    /// future so clock changes are still reported).
    public func arm(wallNanoseconds: Int64?) {
        precondition(clock == .wall)
        guard let wallNanoseconds else {
            if cancelOnClockChange { arm(nanoseconds: Int64.max / 2) } else { disarm() }
            return
        }
        arm(nanoseconds: max(1, wallNanoseconds))
    }

    private func arm(nanoseconds: Int64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(nanoseconds / 1_000_000_000)
        spec.it_value.tv_nsec = Int(nanoseconds % 1_000_000_000)
        var flags = Int32(TFD_TIMER_ABSTIME)
        if cancelOnClockChange { flags |= Int32(TFD_TIMER_CANCEL_ON_SET) }
        timerfd_settime(fd, flags, &spec, nil)
    }

    private func disarm() {
        var spec = itimerspec()
        timerfd_settime(fd, 0, &spec, nil)
    }

    /// Stops the timer's thread; the timer cannot be used afterwards.
    public func stop() { thread.stop() }

    deinit {
        thread.stop()
        close(fd)
    }
}
