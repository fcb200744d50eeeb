import Foundation
import LockCore
import LockStore
import Logging

/// Deletes blocked attempts older than the retention setting (`[insights] retention`, a year
/// by default); `RetentionService` runs it at start-up and every hour.
struct AttemptPruner: Sendable {
    let store: StateStore
    let clock: @Sendable () -> ClockReading
    let logger: Logger

    /// Deletes what is older than `retention` now; returns how many attempts went.
    @discardableResult
    func prune(keeping retention: Duration) -> Int {
        let cutoff = clock().wall.addingTimeInterval(-retention.seconds)
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
