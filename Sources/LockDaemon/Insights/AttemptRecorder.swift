import Foundation
import LockCore
import LockEnforcement
import LockStore
import Logging
import ServiceLifecycle

/// Turns what the enforcers report into blocked attempts: repeats of the same name from the
/// same client within 10 s are one attempt; each attempt is attributed to the session whose
/// rules stopped it, saved (append-only, with its quarter-hour sum) and published as a
/// `site.blocked` or `app.blocked` event.
///
/// Everything waiting is handled in one batch and saved in one transaction, so a burst costs
/// one write, not one per attempt.
actor AttemptRecorder: ServiceLifecycle.Service {
    private let inbox: AttemptInbox
    private let sessions: SessionService
    private let store: StateStore
    private let events: EventBus
    private let logger: Logger
    private let clock: @Sendable () -> ClockReading
    private var collapser = AttemptCollapser()
    private var lastDropped = 0
    /// Attempts saved since the start, for status.
    private(set) var recorded = 0

    init(
        inbox: AttemptInbox, sessions: SessionService, store: StateStore, events: EventBus, logger: Logger,
        clock: @escaping @Sendable () -> ClockReading
    ) {
        self.inbox = inbox
        self.sessions = sessions
        self.store = store
        self.events = events
        self.logger = logger
        self.clock = clock
    }

    func run() async throws {
        let inbox = self.inbox
        await cancelWhenGracefulShutdown {
            for await _ in inbox.arrivals { await self.handleWaiting() }
        }
        // What arrived before shutdown is still saved.
        await handleWaiting()
    }

    /// Handles every attempt waiting now (tests call this instead of running the service).
    func handleWaiting() async {
        let batch = inbox.drain()
        let dropped = inbox.dropped
        if dropped > lastDropped {
            logger.warning(
                "blocked attempts arrived faster than they could be saved; some were not counted",
                metadata: ["dropped": "\(dropped - lastDropped)"])
            lastDropped = dropped
        }
        await handle(batch)
    }

    /// The browser companion's shield, counted at once (its report's answer says whether it was):
    /// the same collapsing, attribution, saving and event as every other attempt.
    /// Each report is saved at once, so each user gets at most `browserReportsPerMinute` saved a
    /// minute: a browser shows a few shields a minute, and any local user may report (a script
    /// naming fresh subdomains of a blocked site would otherwise cost a write each).
    func recordBrowserShield(_ shield: BrowserShieldAttempt) async -> Bool {
        let now = clock()
        let minute = now.boot.nanoseconds / 60_000_000_000
        if browserReports.minute != minute { browserReports = (minute, [:]) }
        guard browserReports.counts[shield.uid, default: 0] < Self.browserReportsPerMinute else { return false }
        let saved = await handle([AttemptInbox.Stamped(raw: .browser(shield), wall: now.wall, boot: now.boot)]) > 0
        if saved { browserReports.counts[shield.uid, default: 0] += 1 }
        return saved
    }

    static let browserReportsPerMinute = 30
    /// Browser attempts saved per user in the current boot-clock minute.
    private var browserReports: (minute: Int64, counts: [UInt32: Int]) = (0, [:])

    /// Collapses, attributes, saves and publishes `batch`; returns how many attempts were saved.
    @discardableResult
    private func handle(_ batch: [AttemptInbox.Stamped]) async -> Int {
        guard !batch.isEmpty else { return 0 }
        let active = await sessions.active
        let now = clock()
        var attempts: [(BlockedAttempt, Session?)] = []
        var refusals: [Int: OpenRefusal] = [:]
        for stamped in batch {
            guard var attempt = Self.attempt(from: stamped) else { continue }
            guard collapser.admit(attempt.collapseKey, at: stamped.boot) else { continue }
            if case .app(let denial) = stamped.raw, let refusal = denial.refusal {
                // An open limit, not a session, refused it: the attempt is the allowance's profile's.
                attempt.profile = refusal.profile
                refusals[attempts.count] = refusal
                attempts.append((attempt, nil))
                continue
            }
            let session = Self.blocker(of: attempt, among: active, raw: stamped.raw)
            attempt.profile = session?.profile
            attempts.append((attempt, session))
        }
        guard !attempts.isEmpty else { return 0 }
        do {
            try store.recordAttempts(attempts.map(\.0))
            recorded += attempts.count
        } catch {
            logger.error("cannot save blocked attempts", metadata: ["error": "\(error)", "attempts": "\(attempts.count)"])
        }
        for (index, (attempt, session)) in attempts.enumerated() {
            if let refusal = refusals[index] {
                events.publish(.launchRefused(attempt, refusal))
                continue
            }
            let left = session.map { $0.remaining(at: now) }
            switch attempt.kind {
            case .site: events.publish(.siteBlocked(attempt, timeLeft: left))
            case .app: events.publish(.appBlocked(attempt, timeLeft: left))
            }
        }
        return attempts.count
    }

    static func attempt(from stamped: AttemptInbox.Stamped) -> BlockedAttempt? {
        switch stamped.raw {
        case .dns(let query):
            return BlockedAttempt(kind: .site, name: query.name, detail: query.rule, source: .dns, client: query.client, at: stamped.wall)
        case .app(let denial):
            return BlockedAttempt(
                kind: .app, name: denial.appID, detail: denial.path, source: .apps, client: "pid \(denial.pid)",
                at: stamped.wall)
        case .firewall(let connection):
            return BlockedAttempt(
                kind: .site, name: connection.name, detail: connection.address, source: .firewall,
                client: connection.realTime ? "" : "counter", at: stamped.wall, count: max(1, connection.count))
        case .connection(let refusal):
            // The firewall's: its tables refused it. The detail is the rule, as the DNS filter's,
            // which tells the session it belongs to; the address goes where a client would.
            return BlockedAttempt(
                kind: .site, name: refusal.name, detail: refusal.rule, source: .firewall, client: refusal.address, at: stamped.wall)
        case .browser(let shield):
            return BlockedAttempt(
                kind: .site, name: shield.name, detail: shield.rule, source: .browser, client: "uid \(shield.uid)", at: stamped.wall)
        }
    }

    /// The session whose rules stopped the attempt: for a site the one with the rule the DNS
    /// filter reported (else any that blocks the name), the longest-lasting when several do.
    static func blocker(of attempt: BlockedAttempt, among active: [Session], raw: RawAttempt) -> Session? {
        if case .browser(let shield) = raw, let session = active.first(where: { $0.id == shield.session }) { return session }
        switch attempt.kind {
        case .site:
            let blockers = SessionSet(active).blockers(of: attempt.name)
            let preferred = blockers.filter { $0.rule == attempt.detail }
            return (preferred.isEmpty ? blockers : preferred).map(\.session).max { $0.endBoot < $1.endBoot }
        case .app:
            // Sessions' rules do not name apps yet; once they do, match the denial's app id here.
            return nil
        }
    }
}
