/// Folds repeats of the same blocked attempt into one: a page load asks for the same name
/// several times (A, AAAA, HTTPS, retries), and a program started twice in a second is one
/// attempt. A repeat is the same key (kind, name, client) within `window` of the last one
/// counted; the window is measured on a monotonic clock.
public struct AttemptCollapser: Sendable {
    /// Repeats within this long of a counted attempt are folded into it.
    public let window: Duration
    /// Keys remembered at most; the oldest are forgotten first.
    public let capacity: Int
    private var lastCounted: [String: BootTime] = [:]

    /// Creates a collapser.
    public init(window: Duration = .seconds(10), capacity: Int = 8192) {
        self.window = window
        self.capacity = capacity
    }

    /// True when an attempt with `key` at `time` counts; false for a repeat.
    public mutating func admit(_ key: String, at time: BootTime) -> Bool {
        if let last = lastCounted[key], time - last < window, time >= last { return false }
        if lastCounted.count >= capacity { forget(before: time - window) }
        if lastCounted.count >= capacity { lastCounted.removeAll(keepingCapacity: true) }
        lastCounted[key] = time
        return true
    }

    private mutating func forget(before cutoff: BootTime) {
        lastCounted = lastCounted.filter { $0.value >= cutoff }
    }
}
