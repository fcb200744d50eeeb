import Foundation

/// Compares the kernel's count of port-53 traffic carrying the exemption mark (the table's
/// `exemptudp` and `exempttcp` counters) with what the daemon itself sent (`ExemptionLedger`):
/// more in the kernel means another socket borrowed the mark, however briefly it lived.
///
/// The daemon counts a send before making it, so its own traffic never makes the kernel count
/// more. Its sends the kernel has not counted yet (in flight, or failed before the hook) are
/// credit until the first look `window` after the look that saw them, newest used first; then
/// the credit is dropped, so failed sends cannot hide a borrower for long. What was borrowed stays reported
/// while the counters exist (until the redirect goes with the block), as does a counter that
/// went down without being recreated (reset from outside, which could hide borrowing). New
/// counters (a recreated table, a restarted daemon) are taken as they are at the first look,
/// with the daemon's sends of the last `window` as credit (those may still be in flight).
struct ExemptionAccount {
    /// The kernel's counters and their identities (object handles): another identity means the
    /// table, and with it the counters, were created anew.
    struct Reading: Equatable {
        var traffic: ExemptedTraffic
        var identity: [Int]
    }

    /// Traffic the kernel counted beyond the daemon's own since the counters were first seen.
    private(set) var borrowed = ExemptedTraffic()
    /// Whether a counter went down while keeping its identity.
    private(set) var counterReset = false
    /// When the first borrowing (or reset) was seen.
    private(set) var since: Date?

    /// How long a send may take from being counted to passing the kernel's hook, at most.
    static let window: Duration = .seconds(2)

    private var last: Reading?
    /// Sends the kernel has not counted yet, by the look that saw them.
    private var credit: [(at: ContinuousClock.Instant, traffic: ExemptedTraffic)] = []
    /// The daemon's totals at earlier looks: the newest at or before `window` ago, and later ones.
    private var history: [(at: ContinuousClock.Instant, daemon: ExemptedTraffic)] = []

    /// Takes a look: `kernel` read first, then `daemon` (so that every send of the daemon the
    /// kernel counted is in `daemon`); nil `kernel` when the counters do not exist (no redirect).
    mutating func observe(kernel: Reading?, daemon: ExemptedTraffic, at now: ContinuousClock.Instant, date: Date = Date()) {
        let previousDaemon = history.last?.daemon ?? daemon
        history.append((now, daemon))
        while history.count > 1, history[1].at <= now - Self.window { history.removeFirst() }
        guard let kernel else {
            self = ExemptionAccount(history: history)
            return
        }
        let recent = Self.difference(daemon, history[0].daemon)
        guard let last, last.identity == kernel.identity else {
            self.last = kernel
            credit = [(now, recent)]
            return
        }
        self.last = kernel
        if kernel.traffic.datagrams < last.traffic.datagrams || kernel.traffic.connections < last.traffic.connections {
            counterReset = true
            since = since ?? date
            credit = [(now, recent)]
            return
        }
        credit.append((now, Self.difference(daemon, previousDaemon)))
        let kernelGrowth = Self.difference(kernel.traffic, last.traffic)
        for part in [\ExemptedTraffic.datagrams, \.connections] {
            var used = kernelGrowth[keyPath: part]
            // Newest first: the kernel's growth is mostly the sends made since the last look;
            // what is left on older credit (a new table's guess at what was in flight) expires.
            for index in credit.indices.reversed() where used > 0 {
                let taken = min(used, credit[index].traffic[keyPath: part])
                credit[index].traffic[keyPath: part] -= taken
                used -= taken
            }
            if used > 0 {
                borrowed[keyPath: part] &+= used
                since = since ?? date
            }
        }
        credit.removeAll { $0.at < now - Self.window || $0.traffic.isZero }
    }

    /// The counts at the last look, for `status`: the kernel's, and the daemon's since it started.
    var counts: String? {
        guard let last, let daemon = history.last?.daemon else { return nil }
        let credited = credit.reduce(0) { $0 + $1.traffic.datagrams + $1.traffic.connections }
        return "the kernel counted \(last.traffic.datagrams) UDP, \(last.traffic.connections) TCP; the daemon sent "
            + "\(daemon.datagrams) UDP, \(daemon.connections) TCP; \(credited) in flight"
    }

    /// What was seen, in a sentence; nil when nothing.
    var finding: String? {
        var parts: [String] = []
        if !borrowed.isZero {
            parts.append(
                "\(borrowed) to port 53 carried the daemon's exemption mark without being the daemon's: "
                    + "another program's DNS skipped the filter")
        }
        if counterReset { parts.append("the table's count of exempted DNS traffic was reset from outside, which can hide such traffic") }
        guard !parts.isEmpty else { return nil }
        let when = since.map { " (since \($0.formatted(.iso8601)))" } ?? ""
        return parts.joined(separator: "; ") + when
    }

    private init(history: [(at: ContinuousClock.Instant, daemon: ExemptedTraffic)]) { self.history = history }

    init() {}

    private static func difference(_ later: ExemptedTraffic, _ earlier: ExemptedTraffic) -> ExemptedTraffic {
        ExemptedTraffic(
            datagrams: later.datagrams >= earlier.datagrams ? later.datagrams - earlier.datagrams : 0,
            connections: later.connections >= earlier.connections ? later.connections - earlier.connections : 0)
    }
}
