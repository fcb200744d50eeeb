import Synchronization

/// How much of the daemon the control socket's clients may take: connections overall and per
/// user, and how long a connection may take to send a request. Enforcement must keep its
/// descriptors and its CPU whatever clients do, and a reader must not lock out others.
struct ConnectionLimits: Sendable {
    /// Open connections at most, all users together (root may use `rootReserve` more).
    var total = 256
    /// Open connections of one user at most.
    var perUser = 32
    /// Extra connections kept for root, so an administrator is never locked out.
    var rootReserve = 16
    /// A complete request must arrive within this after the connection opens or the previous
    /// answer was sent (idle and slow clients are cut), and an answer must be taken within it.
    var requestTimeout: Duration = .seconds(10)

    /// Limits that fit the descriptors the process may open: half of them at most, minus a
    /// margin for files, timers and netlink sockets.
    static func fitting(openFiles: Int) -> ConnectionLimits {
        var limits = ConnectionLimits()
        let room = max(8, (openFiles - 128) / 2)
        limits.total = min(limits.total, room)
        limits.perUser = min(limits.perUser, max(2, limits.total / 4))
        limits.rootReserve = min(limits.rootReserve, max(1, room / 16))
        return limits
    }
}

/// Counts open connections per user against `ConnectionLimits`.
final class ConnectionCounter: Sendable {
    private struct Counts {
        var total = 0
        var perUser: [UInt32: Int] = [:]
    }

    private let limits: ConnectionLimits
    private let counts = Mutex(Counts())

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Takes a slot for `uid`; false when its share or the total is used up.
    func acquire(uid: UInt32) -> Bool {
        counts.withLock { counts in
            let mine = counts.perUser[uid, default: 0]
            let total = limits.total + (uid == 0 ? limits.rootReserve : 0)
            guard counts.total < total, uid == 0 || mine < limits.perUser else { return false }
            counts.total += 1
            counts.perUser[uid] = mine + 1
            return true
        }
    }

    /// Gives a slot back.
    func release(uid: UInt32) {
        counts.withLock { counts in
            counts.total -= 1
            let left = counts.perUser[uid, default: 1] - 1
            counts.perUser[uid] = left > 0 ? left : nil
        }
    }

    /// Open connections now.
    var open: Int { counts.withLock { $0.total } }
}
