import Synchronization

/// How much of a server its clients may take: connections overall and per user, and how long a
/// connection may take to send a request. The daemon's control socket must keep enforcement's
/// descriptors and CPU whatever clients do, and no group of readers may lock out the people who
/// may change things, nor readers of other uids; the UI's loopback server, which cannot tell
/// users apart, uses the total and the deadline alone.
///
/// Three pools, each on top of the last: readers share `total`; callers who may change things
/// also use `authorisedReserve` beyond it; root also `rootReserve`. Within a pool, a uid that
/// already holds connections is refused another when only `newcomerReserve` slots are left, so
/// a uid that holds none still gets in: nine uids holding 32 idle connections each no longer
/// lock out a tenth.
public struct ConnectionLimits: Sendable {
    /// Open connections at most of readers, all uids together.
    public var total = 256
    /// Open connections of one user at most (root has no share).
    public var perUser = 32
    /// Extra connections for root and members of the admin group, beyond `total`.
    public var authorisedReserve = 32
    /// Extra connections kept for root beyond those, so an administrator is never locked out.
    public var rootReserve = 16
    /// Slots of each pool kept for uids that hold no connection yet.
    public var newcomerReserve = 16
    /// A complete request must arrive within this after the connection opens or the previous
    /// answer was sent (idle and slow clients are cut), and an answer must be taken within it.
    public var requestTimeout: Duration = .seconds(10)

    /// The daemon's defaults.
    public init() {}

    /// Limits for a server that cannot tell its callers apart: `total` connections, each with
    /// `requestTimeout` to send a request.
    public init(total: Int, requestTimeout: Duration) {
        self.total = total
        perUser = total
        authorisedReserve = 0
        rootReserve = 0
        newcomerReserve = 0
        self.requestTimeout = requestTimeout
    }

    /// Limits that fit the descriptors the process may open: half of them at most, minus a
    /// margin for files, timers and netlink sockets.
    public static func fitting(openFiles: Int) -> ConnectionLimits {
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
public enum ConnectionCaller: Sendable {
    case root, authorised, reader
}

/// Why a connection was refused (each server words its own message).
public enum ConnectionRefusal: Sendable, Equatable {
    /// The uid has its share open.
    case perUser(limit: Int)
    /// The pool is full (or down to the newcomers' reserve and this uid already has some).
    case pool(open: Int, caller: ConnectionCaller)

    /// A short name for the log.
    public var reason: String {
        switch self {
        case .perUser: "per-user limit"
        case .pool(_, .reader): "readers' limit"
        case .pool(_, .authorised): "admin group's limit"
        case .pool(_, .root): "root's limit"
        }
    }
}

/// Counts open connections per user against `ConnectionLimits`.
public final class ConnectionCounter: Sendable {
    private struct Counts {
        var total = 0
        var perUser: [UInt32: Int] = [:]
    }

    private let limits: ConnectionLimits
    private let counts = Mutex(Counts())

    public init(limits: ConnectionLimits) { self.limits = limits }

    /// Takes a slot for `uid`, or says which limit refused it.
    public func acquire(uid: UInt32, caller: ConnectionCaller) -> ConnectionRefusal? {
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
    public func release(uid: UInt32) {
        counts.withLock { counts in
            counts.total -= 1
            let left = counts.perUser[uid, default: 1] - 1
            counts.perUser[uid] = left > 0 ? left : nil
        }
    }

    /// Open connections now.
    public var open: Int { counts.withLock { $0.total } }
}
