import Foundation
import Logging
import Synchronization

/// Flushes the machine's resolver caches after every change of the blocked set, so that a
/// name blocked (or unblocked) a moment ago is not answered from a cache for its TTL.
/// Failures are logged and reported in status; they never fail a block.
public final class ResolverCacheFlusher: Sendable {
    /// The last flush, for status.
    public struct Report: Sendable, Equatable {
        /// When it happened.
        public var at: Date
        /// Caches flushed.
        public var flushed: [String]
        /// Caches that do not run here.
        public var notRunning: [String]
        /// Caches that could not be flushed, with why.
        public var failures: [String]
    }

    private let caches: [any ResolverCache]
    private let logger: Logger
    private let last = Mutex<Report?>(nil)

    init(caches: [any ResolverCache], logger: Logger) {
        self.caches = caches
        self.logger = logger
    }

    /// The caches of this machine: systemd-resolved through the system bus, and nscd.
    static func machine(logger: Logger) -> ResolverCacheFlusher {
        ResolverCacheFlusher(caches: [SystemdResolvedCache(), NscdCache()], logger: logger)
    }

    /// The last flush, or nil before the first.
    public var report: Report? { last.withLock { $0 } }

    /// Flushes every cache (each call bounded by its timeout).
    public func flush() {
        var report = Report(at: Date(), flushed: [], notRunning: [], failures: [])
        for cache in caches {
            switch cache.flush() {
            case .flushed: report.flushed.append(cache.name)
            case .notRunning: report.notRunning.append(cache.name)
            case .failed(let why):
                report.failures.append("\(cache.name): \(why)")
                logger.warning(
                    "cannot flush a resolver cache; it may answer blocked names from before the change until their TTL runs out",
                    metadata: ["cache": "\(cache.name)", "error": "\(why)"])
            }
        }
        if !report.flushed.isEmpty { logger.debug("resolver caches flushed", metadata: ["caches": "\(report.flushed)"]) }
        last.withLock { $0 = report }
    }
}
