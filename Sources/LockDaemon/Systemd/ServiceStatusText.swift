/// Formats the one-line `STATUS=` text that `systemctl status simplylockd` shows, e.g.
/// `2 blocks active: deep-work 31m left, social 2h 5m left` or `idle`.
public enum ServiceStatusText {
    /// How many blocks are named before the rest is summarised as "and N more"; systemctl
    /// shows one line and a long status would be cut at the terminal's edge anyway.
    public static let namedLimit = 3

    /// Builds the status line from the active blocks, soonest-ending first.
    /// - Parameter blocks: Each active block's profile name and remaining time.
    /// - Returns: `"idle"` when nothing is blocked.
    public static func format(_ blocks: [(profile: String, remaining: Duration)]) -> String {
        guard !blocks.isEmpty else { return "idle" }
        let sorted = blocks.sorted { $0.remaining != $1.remaining ? $0.remaining < $1.remaining : $0.profile < $1.profile }
        var parts = sorted.prefix(namedLimit).map { "\($0.profile) \(remainingText($0.remaining)) left" }
        if sorted.count > namedLimit {
            parts.append("and \(sorted.count - namedLimit) more")
        }
        let noun = blocks.count == 1 ? "block" : "blocks"
        return "\(blocks.count) \(noun) active: " + parts.joined(separator: ", ")
    }

    /// Renders a remaining time coarsely: `2h 5m`, `31m`, `45s`. Whole minutes are rounded up,
    /// so a block never reads "0m left" while it is still active.
    public static func remainingText(_ remaining: Duration) -> String {
        let seconds = max(0, remaining.components.seconds + (remaining.components.attoseconds > 0 ? 1 : 0))
        if seconds < 60 {
            return "\(seconds)s"
        }
        let minutes = (seconds + 59) / 60
        let hours = minutes / 60
        if hours == 0 {
            return "\(minutes)m"
        }
        return minutes % 60 == 0 ? "\(hours)h" : "\(hours)h \(minutes % 60)m"
    }
}
