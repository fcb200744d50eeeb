import Foundation
import CLinux
import Glibc
import LockCore

/// Reads the real clocks. The only place the daemon asks the kernel what time it is, so the
/// rest of the code can take a `ClockReading` and stay testable.
public enum SystemClock {
    /// The current boot's identifier, read once: it cannot change while we run.
    public static let bootID: String = {
        let raw = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "unknown-boot" : trimmed
    }()

    /// Both clocks, read back to back.
    public static func now() -> ClockReading {
        ClockReading(wall: Date(), boot: bootTime(), bootID: bootID)
    }

    /// `CLOCK_BOOTTIME` now.
    public static func bootTime() -> BootTime {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return BootTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// Whether the kernel considers the wall clock synchronised (NTP); nil if it cannot say.
    public static var isSynchronised: Bool? {
        switch clinux_clock_synchronised() {
        case 1: true
        case 0: false
        default: nil
        }
    }
}
