import CLinux
import Foundation
import Glibc
import LockCore
import LockPlatform
import Synchronization

/// One launch of a counted app, waiting for the daemon's decision (`AppEnforcer(onLaunch:)`).
///
/// The daemon first `claim`s it (false: too late, the guard already answered by the rule for
/// undecided launches, so nothing may be recorded), records the launch if it allows it, then
/// `decide`s. Whatever happens, the exec is answered within `LaunchGate.deadline` of its
/// arrival, or `LaunchGate.claimedDeadline` once claimed.
public final class LaunchRequest: Sendable {
    /// The app.
    public let app: CountedApp
    /// The real uid of the process that execs it.
    public let uid: UInt32
    /// The process that execs it.
    public let pid: Int32
    let id: UInt64
    private let gate: LaunchGate

    init(app: CountedApp, uid: UInt32, pid: Int32, id: UInt64, gate: LaunchGate) {
        self.app = app
        self.uid = uid
        self.pid = pid
        self.id = id
        self.gate = gate
    }

    /// Takes the decision on; false when the guard already answered (the deadline passed).
    public func claim() -> Bool { gate.claim(id) }

    /// The decision (after `claim`); the exec is answered at once.
    public func decide(_ verdict: LaunchVerdict) { gate.decide(id, verdict) }
}

/// Decides the execs of counted apps' programs on a thread of its own, so the answer thread
/// never waits for a scan of /proc or for the daemon: an exec while the app runs for the same
/// user is allowed at once (not a launch); a launch is handed to the daemon, which counts it
/// and answers through the one commit path. A launch not decided within `deadline` (the
/// daemon busy or stuck, more than `capacity` waiting) is refused when a strict allowance
/// counts the app and allowed otherwise; either way it is not counted. Nothing about counted
/// programs is ever remembered in the kernel: every exec asks again.
final class LaunchGate: Sendable {
    /// Launches waiting beyond this many are answered by the rule at once.
    static let capacity = 64
    /// How long a launch may wait for the daemon before the rule answers it.
    static let deadline = Duration.seconds(2)
    /// How long a launch the daemon claimed (and is saving) may wait in all.
    static let claimedDeadline = Duration.seconds(5)

    struct Arrival: Sendable {
        var fd: Int32
        var pid: Int32
        var app: CountedApp
        var identities: Set<FileIdentity>
        var queued: ContinuousClock.Instant
    }

    struct Waiting: Sendable {
        var fd: Int32
        var pid: Int32
        var app: CountedApp
        var queued: ContinuousClock.Instant
        var claimed = false
        var verdict: LaunchVerdict?
    }

    /// What the gate did, for status.
    struct Counts: Sendable, Equatable {
        var allowed = 0
        var refused = 0
        /// Execs within a running app: not launches.
        var within = 0
        /// Answered by the rule because the daemon did not decide in time.
        var undecided = 0
    }

    private let arrivals = Mutex<[Arrival]>([])
    private let waiting = Mutex<[UInt64: Waiting]>([:])
    private let counts = Mutex(Counts())
    private let nextID = Atomic<UInt64>(1)
    private let wakeFD: Int32
    private let stopFD: Int32
    private let proc: String
    private let onLaunch: (@Sendable (LaunchRequest) -> Void)?
    private let respond: @Sendable (_ fd: Int32, _ allow: Bool) -> Void
    private let refused: @Sendable (_ pid: Int32, _ fd: Int32, _ app: CountedApp, _ refusal: OpenRefusal) -> Void

    /// - Parameters:
    ///   - stopFD: becomes readable when the guard stops (shared with the guard's threads).
    ///   - respond: answers a permission event.
    ///   - refused: reports a refused launch.
    init(
        stopFD: Int32, proc: String = "/proc", onLaunch: (@Sendable (LaunchRequest) -> Void)?,
        respond: @escaping @Sendable (Int32, Bool) -> Void,
        refused: @escaping @Sendable (Int32, Int32, CountedApp, OpenRefusal) -> Void
    ) {
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        self.stopFD = stopFD
        self.proc = proc
        self.onLaunch = onLaunch
        self.respond = respond
        self.refused = refused
    }

    deinit { close(wakeFD) }

    var statistics: Counts { counts.withLock { $0 } }

    /// From the answer thread: takes the event (and its descriptor) or answers it by the rule.
    func submit(fd: Int32, pid: Int32, app: CountedApp, identities: Set<FileIdentity>) {
        let accepted = arrivals.withLock { items -> Bool in
            guard items.count + waiting.withLock(\.count) < Self.capacity else { return false }
            items.append(Arrival(fd: fd, pid: pid, app: app, identities: identities, queued: .now))
            return true
        }
        if accepted {
            poke()
        } else {
            undecided(fd: fd, strict: app.strict)
        }
    }

    func claim(_ id: UInt64) -> Bool {
        waiting.withLock { items in
            guard var item = items[id], !item.claimed, item.verdict == nil else { return false }
            item.claimed = true
            items[id] = item
            return true
        }
    }

    func decide(_ id: UInt64, _ verdict: LaunchVerdict) {
        let known = waiting.withLock { items -> Bool in
            guard items[id] != nil else { return false }
            items[id]?.verdict = verdict
            return true
        }
        if known { poke() }
    }

    private func poke() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    private func undecided(fd: Int32, strict: Bool) {
        respond(fd, !strict)
        close(fd)
        counts.withLock { $0.undecided += 1 }
    }

    /// The gate's thread: runs until `stopFD` is readable, then allows whatever still waits
    /// (as closing the group would).
    func run() {
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0), pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let timeout = nextTimeout()
            let ready = poll(&fds, 2, timeout)
            if ready < 0, errno != EINTR { usleep(1000) }
            if fds[1].revents != 0 {
                let left = arrivals.withLock { items in
                    defer { items = [] }
                    return items.map(\.fd)
                }
                let waited = waiting.withLock { items in
                    defer { items = [:] }
                    return items.values.map(\.fd)
                }
                for fd in left + waited {
                    respond(fd, true)
                    close(fd)
                }
                return
            }
            var counter: UInt64 = 0
            _ = read(wakeFD, &counter, 8)
            for arrival in arrivals.withLock({ items in
                defer { items = [] }
                return items
            }) {
                take(arrival)
            }
            finishDecided()
        }
    }

    /// Milliseconds until the earliest waiting launch is due, for poll.
    private func nextTimeout() -> Int32 {
        let due = waiting.withLock { items in
            items.values.map { $0.queued + ($0.claimed ? Self.claimedDeadline : Self.deadline) }.min()
        }
        guard let due else { return -1 }
        let left = ContinuousClock.now.duration(to: due)
        guard left > .zero else { return 0 }
        return Int32(min(60_000, max(1, Int(left.seconds * 1000) + 1)))
    }

    private func take(_ arrival: Arrival) {
        guard ContinuousClock.now < arrival.queued + Self.deadline else {
            undecided(fd: arrival.fd, strict: arrival.app.strict)
            return
        }
        guard let uid = LaunchScan.uid(of: arrival.pid, proc: proc) else {
            // The process is gone: nothing waits for the answer.
            respond(arrival.fd, true)
            close(arrival.fd)
            return
        }
        // The app execing a helper (or itself) is the common case, and needs no scan of /proc.
        let within =
            LaunchScan.runs(arrival.pid, arrival.identities, proc: proc)
            || !LaunchRule.isLaunch(by: uid, runningFor: LaunchScan.users(running: arrival.identities, proc: proc))
        guard !within else {
            respond(arrival.fd, true)
            close(arrival.fd)
            counts.withLock { $0.within += 1 }
            return
        }
        guard let onLaunch else {
            undecided(fd: arrival.fd, strict: arrival.app.strict)
            return
        }
        let id = nextID.add(1, ordering: .relaxed).oldValue
        waiting.withLock { $0[id] = Waiting(fd: arrival.fd, pid: arrival.pid, app: arrival.app, queued: arrival.queued) }
        onLaunch(LaunchRequest(app: arrival.app, uid: uid, pid: arrival.pid, id: id, gate: self))
    }

    /// Answers the decided launches and those whose time is up.
    private func finishDecided() {
        let now = ContinuousClock.now
        let done = waiting.withLock { items -> [Waiting] in
            var done: [Waiting] = []
            for (id, item) in items {
                let due = item.queued + (item.claimed ? Self.claimedDeadline : Self.deadline)
                if item.verdict != nil || now >= due {
                    done.append(item)
                    items[id] = nil
                }
            }
            return done
        }
        for item in done {
            switch item.verdict {
            case .allowed?:
                respond(item.fd, true)
                counts.withLock { $0.allowed += 1 }
            case .refused(let refusal)?:
                respond(item.fd, false)
                counts.withLock { $0.refused += 1 }
                refused(item.pid, item.fd, item.app, refusal)
            case nil:
                respond(item.fd, !item.app.strict)
                counts.withLock { $0.undecided += 1 }
            }
            close(item.fd)
        }
    }
}
