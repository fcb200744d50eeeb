import Foundation

/// Keeps a burst from becoming a burst of notifications: a notification with the same key as
/// one shown less than `cooldown` ago is held back (and counted), and at most `limit`
/// notifications of the throttled kinds are shown in any `window`. The next one shown says how
/// many were held back. Pure: time is passed in.
struct NotificationThrottle {
    var cooldown: TimeInterval = 60
    var limit = 3
    var window: TimeInterval = 30
    private var lastShown: [String: Date] = [:]
    private var recent: [Date] = []
    private var heldBack = 0

    init(cooldown: TimeInterval = 60, limit: Int = 3, window: TimeInterval = 30) {
        self.cooldown = cooldown
        self.limit = limit
        self.window = window
    }

    /// Whether to show the notification with `key` at `now`: nil to hold it back, else how many
    /// were held back since the last one shown.
    mutating func admit(_ key: String, at now: Date) -> Int? {
        recent.removeAll { now.timeIntervalSince($0) >= window }
        if let last = lastShown[key], now.timeIntervalSince(last) < cooldown {
            heldBack += 1
            return nil
        }
        guard recent.count < limit else {
            heldBack += 1
            return nil
        }
        lastShown[key] = now
        // Forget keys long quiet, so the table stays small.
        if lastShown.count > 256 { lastShown = lastShown.filter { now.timeIntervalSince($0.value) < cooldown } }
        recent.append(now)
        defer { heldBack = 0 }
        return heldBack
    }
}
