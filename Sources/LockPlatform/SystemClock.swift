import CLinux
import Foundation
import Glibc
import LockCore

/// Reads the real clocks. The only place the daemon asks the kernel what time it is, so the
/// rest of the code can take a `ClockReading` and stay testable.
public enum SystemClock {
    /// The current boot's identifier, read once: it cannot change while we run.
    /// `SIMPLYLOCK_BOOT_ID` replaces it, so tests can simulate a reboot.
    public static let bootID: String = {
        if let fake = ProcessInfo.processInfo.environment["SIMPLYLOCK_BOOT_ID"], !fake.isEmpty { return fake }
        let raw = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "unknown-boot" : trimmed
    }()

    /// `SIMPLYLOCK_CLOCK_SYNCHRONISED=yes|no` replaces the kernel's answer (tests, and
    /// machines whose administrator knows better than an unsynchronised flag).
    static let synchronisedOverride: Bool? = {
        switch ProcessInfo.processInfo.environment["SIMPLYLOCK_CLOCK_SYNCHRONISED"] {
        case "yes", "1", "true": true
        case "no", "0", "false": false
        default: nil
        }
    }()

    /// Both clocks, read back to back, and whether the wall clock can be trusted.
    public static func now() -> ClockReading {
        ClockReading(wall: Date(), boot: bootTime(), bootID: bootID, wallIsSynchronised: isSynchronised ?? false)
    }

    /// `CLOCK_BOOTTIME` now.
    public static func bootTime() -> BootTime {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return BootTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// Whether the wall clock is synchronised: the kernel's NTP status (`adjtimex`, which
    /// chrony and ntpd keep up to date; setting the clock by hand clears it), or
    /// systemd-timesyncd's flag file. Nil if nothing can say.
    public static var isSynchronised: Bool? {
        if let synchronisedOverride { return synchronisedOverride }
        if access("/run/systemd/timesync/synchronized", F_OK) == 0 { return true }
        switch clinux_clock_synchronised() {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }
}
