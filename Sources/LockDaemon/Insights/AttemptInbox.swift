import Foundation
import LockCore
import LockEnforcement
import Synchronization

/// What an enforcer reports as it stops something, before it is collapsed and attributed.
enum RawAttempt: Sendable {
    /// The DNS filter answered a lookup as blocked.
    case dns(DNSBlockedQuery)
    /// The exec guard refused a program.
    case app(ExecDenial)
    /// The firewall refused connections.
    case firewall(FirewallAttempt)
    /// The connection check refused a connection naming a blocked name.
    case connection(RefusedConnection)
    /// The browser companion showed its shield.
    case browser(BrowserShieldAttempt)
}

/// The browser companion showed its shield for a URL the daemon found blocked.
struct BrowserShieldAttempt: Sendable {
    /// The page's host, normalised.
    var name: String
    /// The rule that blocks it (a domain, `video.test/shorts`, `keyword shorts`).
    var rule: String
    /// The session whose rule it is.
    var session: String
    /// The user whose browser it was.
    var uid: UInt32
}

/// Where enforcers hand their blocked attempts to the daemon. Their callbacks run on the
/// enforcers' own threads (the DNS filter's event loop, the exec guard's reporter, the NFLOG
/// reader), so handing over never blocks: an attempt is stamped and appended to a bounded
/// buffer, and the recorder is woken. When the buffer is full, attempts are dropped and counted.
public final class AttemptInbox: Sendable {
    struct Stamped: Sendable {
        var raw: RawAttempt
        var wall: Date
        var boot: BootTime
    }

    /// Attempts waiting beyond this many are dropped.
    public let capacity: Int
    private let buffer = Mutex<[Stamped]>([])
    private let droppedCount = Atomic<Int>(0)
    private let clock: @Sendable () -> ClockReading
    private let wake: AsyncStream<Void>.Continuation
    /// Fires when attempts are waiting; the recorder drains the buffer each time.
    let arrivals: AsyncStream<Void>

    /// Creates an inbox stamping attempts with `clock`.
    public init(capacity: Int = 4096, clock: @escaping @Sendable () -> ClockReading) {
        self.capacity = capacity
        self.clock = clock
        (arrivals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The DNS filter's callback.
    public func dnsBlocked(_ query: DNSBlockedQuery) { record(.dns(query)) }

    /// The app enforcer's callback (`AppEnforcer(onDenial:)`).
    public func appDenied(_ denial: ExecDenial) { record(.app(denial)) }

    /// The nftables enforcer's callback.
    public func firewallBlocked(_ attempt: FirewallAttempt) { record(.firewall(attempt)) }

    /// The connection check's callback (`ConnectionNameEnforcer(onRefused:)`).
    public func connectionRefused(_ refusal: RefusedConnection) { record(.connection(refusal)) }

    /// Attempts dropped because the buffer was full.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    func record(_ raw: RawAttempt) {
        let now = clock()
        let accepted = buffer.withLock { waiting -> Bool in
            guard waiting.count < capacity else { return false }
            waiting.append(Stamped(raw: raw, wall: now.wall, boot: now.boot))
            return true
        }
        if accepted { wake.yield() } else { droppedCount.add(1, ordering: .relaxed) }
    }

    /// Takes everything waiting.
    func drain() -> [Stamped] {
        buffer.withLock { waiting in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
    }

    /// Ends `arrivals` (at shutdown).
    func finish() { wake.finish() }
}
