import Foundation
import LockCore
import LockStore
import Logging

/// Deletes blocked attempts older than the retention setting (`[insights] retention`, a year
/// by default); `RetentionService` runs it at start-up and every hour.
struct AttemptPruner: Sendable {
    let store: StateStore
    let retention: @Sendable () async -> Duration
    let clock: @Sendable () -> ClockReading
    let logger: Logger

    /// Deletes what is older than the retention now; returns how many attempts went.
    @discardableResult
    func prune() async -> Int {
        let cutoff = clock().wall.addingTimeInterval(-(await retention()).seconds)
        do {
            let removed = try store.pruneAttempts(before: cutoff)
            if removed > 0 { logger.info("old blocked attempts deleted", metadata: ["attempts": "\(removed)", "before": "\(cutoff)"]) }
            return removed
        } catch {
            logger.error("cannot delete old blocked attempts", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
