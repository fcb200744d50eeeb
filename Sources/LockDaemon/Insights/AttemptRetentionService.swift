import Foundation
import LockCore
import LockStore
import Logging
import ServiceLifecycle

/// Deletes blocked attempts older than the retention setting (`[insights] retention`, a year
/// by default): at start-up and every `interval`.
struct AttemptRetentionService: ServiceLifecycle.Service {
    let store: StateStore
    let retention: @Sendable () async -> Duration
    let clock: @Sendable () -> ClockReading
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await prune()
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await prune()
            }
        }
    }

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
