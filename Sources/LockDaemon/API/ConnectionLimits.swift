import LockProtocol
import Synchronization

/// How much of the daemon the control socket's clients may take: connections overall and per
/// user, and how long a connection may take to send a request. Enforcement must keep its
/// descriptors and its CPU whatever clients do, and no group of readers may lock out the
/// people who may change things, nor readers of other uids.
///
/// Three pools, each on top of the last: readers share `total`; callers who may change things
/// also use `authorisedReserve` beyond it; root also `rootReserve`. Within a pool, a uid that
/// already holds connections is refused another when only `newcomerReserve` slots are left, so
/// a uid that holds none still gets in: nine uids holding 32 idle connections each no longer
/// lock out a tenth.
struct ConnectionLimits: Sendable {
    /// Open connections at most of readers, all uids together.
    var total = 256
    /// Open connections of one user at most (root has no share).
    var perUser = 32
    /// Extra connections for root and members of the admin group, beyond `total`.
    var authorisedReserve = 32
    /// Extra connections kept for root beyond those, so an administrator is never locked out.
    var rootReserve = 16
    /// Slots of each pool kept for uids that hold no connection yet.
    var newcomerReserve = 16
    /// A complete request must arrive within this after the connection opens or the previous
    /// answer was sent (idle and slow clients are cut), and an answer must be taken within it.
    var requestTimeout: Duration = .seconds(10)

    /// Limits that fit the descriptors the process may open: half of them at most, minus a
    /// margin for files, timers and netlink sockets.
    static func fitting(openFiles: Int) -> ConnectionLimits {
        var limits = ConnectionLimits()
        let room = max(8, (openFiles - 128) / 2)
        limits.rootReserve = min(limits.rootReserve, max(1, room / 16))
        limits.authorisedReserve = min(limits.authorisedReserve, max(1, room / 8))
        limits.total = max(2, min(limits.total, room - limits.rootReserve - limits.authorisedReserve))
        limits.perUser = min(limits.perUser, max(2, limits.total / 4))
        limits.newcomerReserve = min(limits.newcomerReserve, max(1, limits.total / 16))
        return limits
    }
}

/// Who is asking, as far as the limits care.
enum ConnectionCaller: Sendable {
    case root, authorised, reader
}

/// Why a connection was refused; the message tells the caller which limit it met.
enum ConnectionRefusal: Sendable, Equatable {
    /// The uid has its share open.
    case perUser(limit: Int)
    /// The pool is full (or down to the newcomers' reserve and this uid already has some).
    case pool(open: Int, caller: ConnectionCaller)

    var message: String {
        switch self {
        case .perUser(let limit):
            "too many open connections to simplylockd from this user (\(limit) at most); close some and try again"
        case .pool(_, .reader):
            "simplylockd has as many connections from readers as it takes; try again later "
                + "(root and members of the '\(API.adminGroup)' group have connections of their own)"
        case .pool:
            "simplylockd has as many connections as it takes; try again later"
        }
    }

    /// A short name for the log.
    var reason: String {
        switch self {
        case .perUser: "per-user limit"
        case .pool(_, .reader): "readers' limit"
        case .pool(_, .authorised): "admin group's limit"
        case .pool(_, .root): "root's limit"
        }
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

    /// Takes a slot for `uid`, or says which limit refused it.
    func acquire(uid: UInt32, caller: ConnectionCaller) -> ConnectionRefusal? {
        counts.withLock { counts in
            let mine = counts.perUser[uid, default: 0]
            let pool: Int
            switch caller {
            case .reader: pool = limits.total
            case .authorised: pool = limits.total + limits.authorisedReserve
            case .root: pool = limits.total + limits.authorisedReserve + limits.rootReserve
            }
            if caller != .root, mine >= limits.perUser { return .perUser(limit: limits.perUser) }
            let free = pool - counts.total
            guard free > 0, mine == 0 || free > limits.newcomerReserve || caller == .root else {
                return .pool(open: counts.total, caller: caller)
            }
            counts.total += 1
            counts.perUser[uid] = mine + 1
            return nil
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
