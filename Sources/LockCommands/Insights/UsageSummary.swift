import Foundation
import LockProtocol

/// The screen-time line of `lockctl insights`: time in use over the window, against the same
/// length of time just before it, and the apps used most.
enum UsageSummary {
    /// `Screen    5h 20m · before: 4h 10m (+28%) · firefox 2h 10m, supertux 1h 05m`; nothing
    /// when nothing was metered in either window.
    static func lines(current: UsageResponse, previous: UsageResponse?) -> [String] {
        let total = current.items.reduce(0) { $0 + $1.seconds }
        let before = previous.map { $0.items.reduce(0) { $0 + $1.seconds } }
        guard total > 0 || (before ?? 0) > 0 else { return [] }
        var parts = ["Screen    \(TextFormat.duration(seconds: total)) in use"]
        if let before {
            let trend = before > 0 ? String(format: " (%+.0f%%)", (Double(total) / Double(before) - 1) * 100) : ""
            parts.append("before: \(TextFormat.duration(seconds: before))\(trend)")
        }
        let top = current.items.prefix(3).map { "\($0.name) \(TextFormat.duration(seconds: $0.seconds))" }
        if !top.isEmpty { parts.append(top.joined(separator: ", ")) }
        return [parts.joined(separator: " · ")]
    }
}
