import Foundation
import LockCore
import LockStore
import Logging

/// Usage retention (`RetentionService` runs it at start-up and every hour): single minutes (with the meter that
/// counted each, what `lockctl usage --explain` lists) are kept `minuteRetention` (35 days);
/// their seconds stay in the quarter-hour sums, which reports read and which are kept as long
/// as blocked attempts (`[insights] retention`, a year by default). Older reports are exact to
/// the quarter hour, so whole local days (every zone's offset is a multiple of one) lose nothing.
struct UsagePruner: Sendable {
    /// How long single minutes are kept.
    static let minuteRetention: Duration = .seconds(35 * 86_400)

    let store: StateStore
    let clock: @Sendable () -> ClockReading
    let logger: Logger

    /// Deletes what is older than the retention now; `sums` is `[insights] retention`.
    func prune(keeping sums: Duration) {
        let now = clock().wall
        // Minutes never outlive their sums.
        let minutes = min(Self.minuteRetention, sums)
        do {
            let removed = try store.pruneUsage(
                minutesBefore: now.addingTimeInterval(-minutes.seconds), quartersBefore: now.addingTimeInterval(-sums.seconds))
            if removed.minutes + removed.quarters > 0 {
                logger.info("old usage deleted", metadata: ["minutes": "\(removed.minutes)", "quarterSums": "\(removed.quarters)"])
            }
        } catch {
            logger.error("cannot delete old usage", metadata: ["error": "\(error)"])
        }
    }
}
