import Foundation
import LockCore

/// Formats the one-line `STATUS=` text that `systemctl status simplylockd` shows, e.g.
/// `2 blocks active: deep-work until 12:30, social until Mon 09:00` or `idle`.
///
/// Ends rather than time left: the line is sent when something changes, not every second, and
/// an end stays true while it is shown. Times are written as everywhere else (`ClockText`).
public enum ServiceStatusText {
    /// How many blocks are named before the rest is summarised as "and N more"; systemctl
    /// shows one line and a long status would be cut at the terminal's edge anyway.
    public static let namedLimit = 3

    /// Builds the status line from the active blocks, soonest-ending first.
    /// - Parameters:
    ///   - blocks: Each active block's profile name and remaining time.
    ///   - now: The wall-clock time the remaining times are counted from.
    ///   - zone: The zone the ends are written in.
    /// - Returns: `"idle"` when nothing is blocked.
    public static func format(_ blocks: [(profile: String, remaining: Duration)], now: Date, zone: TimeZone) -> String {
        guard !blocks.isEmpty else { return "idle" }
        let sorted = blocks.sorted { $0.remaining != $1.remaining ? $0.remaining < $1.remaining : $0.profile < $1.profile }
        var parts = sorted.prefix(namedLimit).map { block in
            let end = now.addingTimeInterval(max(0, block.remaining.seconds.rounded(.up)))
            return "\(block.profile) until \(ClockText.time(end, now: now, zone: zone))"
        }
        if sorted.count > namedLimit {
            parts.append("and \(sorted.count - namedLimit) more")
        }
        return "\(CountText.of(blocks.count, "block")) active: " + parts.joined(separator: ", ")
    }
}
