import Logging
import Synchronization

/// Refused connections, logged in aggregate: one uid wrote 25 000 warnings in 28 s, enough for
/// journald's rate limit to drop the daemon's own messages (tamper repairs, enforcement
/// failures). The first refusal of a uid is logged at once; later ones are counted, and the
/// count is logged once per interval per uid.
final class RefusalLog: Sendable {
    private struct Entry {
        var count = 0
        var reason: String
    }

    /// How often counts are written.
    static let interval: Duration = .seconds(60)

    private let logger: Logger
    private let entries = Mutex([UInt32: Entry]())

    init(logger: Logger) { self.logger = logger }

    /// Notes a refused connection of `uid`; logs it when it is the uid's first in the interval.
    func record(uid: UInt32, pid: Int32, refusal: ConnectionRefusal, open: Int) {
        let first = entries.withLock { entries in
            if entries[uid] != nil {
                entries[uid]?.count += 1
                return false
            }
            entries[uid] = Entry(reason: refusal.reason)
            return true
        }
        guard first else { return }
        logger.warning(
            "connection refused (\(refusal.reason)); further refusals of this uid are counted and logged once a minute",
            metadata: ["uid": "\(uid)", "pid": "\(pid)", "open": "\(open)"])
    }

    /// Logs the counts since the last call, one line per uid, and starts a new interval.
    func flush() {
        let counted = entries.withLock { entries in
            // A uid still refused stays known (its next refusal is counted, not logged
            // again); a quiet one is forgotten.
            let counted = entries.filter { $0.value.count > 0 }
            entries = counted.mapValues { Entry(reason: $0.reason) }
            return counted
        }
        for (uid, entry) in counted.sorted(by: { $0.key < $1.key }) {
            logger.warning(
                "\(entry.count) more connections refused (\(entry.reason)) in the last minute",
                metadata: ["uid": "\(uid)", "refused": "\(entry.count)"])
        }
    }
}
